import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One outbound attempt an engine made through the sink (all are refused). */
export interface ProxyAttempt {
  method: string;
  /** `host:port` for CONNECT, the absolute URL otherwise. */
  target: string;
  at: string;
}

export interface DenyAllProxy {
  /** e.g. http://127.0.0.1:41234, for HTTP(S)_PROXY. */
  url: string;
  attempts: ProxyAttempt[];
  close(): Promise<void>;
}

/**
 * A deny-all HTTP(S) proxy sink on 127.0.0.1. Engines get HTTP(S)_PROXY pointed here (with NO_PROXY for
 * loopback), so any call home (telemetry, update checks, plugin lists) is refused quickly and recorded,
 * instead of hanging on a network that is not there or leaking traffic.
 */
export async function startDenyAllProxy(options: { unref?: boolean } = {}): Promise<DenyAllProxy> {
  const attempts: ProxyAttempt[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    attempts.push({ method: req.method ?? 'GET', target: req.url ?? '', at: new Date().toISOString() });
    req.resume();
    res.writeHead(403, { 'content-type': 'text/plain', connection: 'close' });
    res.end('agentlane: outbound network is disabled for engines\n');
  });
  server.on('connect', (req, socket: Socket) => {
    attempts.push({ method: 'CONNECT', target: req.url ?? '', at: new Date().toISOString() });
    socket.on('error', () => {});
    socket.end('HTTP/1.1 403 Forbidden\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  if (options.unref) server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    attempts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let shared: Promise<DenyAllProxy> | undefined;

/** One sink per process is enough for every engine; it lives until the process exits. */
export function sharedDenyAllProxy(): Promise<DenyAllProxy> {
  // unref: a sink that nobody is using must not keep the process alive.
  shared ??= startDenyAllProxy({ unref: true });
  return shared;
}
