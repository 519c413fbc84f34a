import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  /** The whole status line, reason phrase included. */
  statusLine: string;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds until the server closed the socket or answered. */
  ms: number;
}

/**
 * Writes `chunks` to a fresh TCP connection (a string is sent as is, a number waits that many ms) and reads
 * the first response. For what fetch cannot send: broken request lines, huge headers, bodies shorter than
 * their Content-Length. Rejects when nothing comes back within `timeoutMs`.
 */
export function rawRequest(url: string, chunks: (string | number)[], timeoutMs = 10_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const [head = '', ...rest] = data.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({
        status: Number(statusLine.split(' ')[1] ?? 0),
        statusLine,
        headers,
        body: rest.join('\r\n\r\n'),
        ms: performance.now() - started,
      });
      socket.destroy();
    };
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      data += d;
      const headEnd = data.indexOf('\r\n\r\n');
      if (headEnd === -1) return;
      const length = /content-length:\s*(\d+)/i.exec(data.slice(0, headEnd))?.[1];
      if (length !== undefined && data.length - headEnd - 4 >= Number(length)) done();
    });
    socket.on('close', done);
    socket.on('error', () => {});
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (typeof chunk === 'number') await new Promise((r) => setTimeout(r, chunk));
        else if (!socket.destroyed) socket.write(chunk, 'latin1');
      }
    });
  });
}
