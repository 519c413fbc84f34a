import { connect, createServer, type Socket } from 'node:net';

/** A TCP proxy on 127.0.0.1 in front of a local port, whose connections a test can cut at will. */
export interface TcpProxy {
  port: number;
  /** Destroys every open connection (both sides), as a dropped network path would; resolves how many. */
  dropAll(): number;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    open.add(client);
    const end = () => {
      open.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    dropAll() {
      const n = open.size;
      for (const socket of [...open]) socket.destroy();
      return n;
    },
    async close() {
      for (const socket of [...open]) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
