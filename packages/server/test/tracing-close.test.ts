import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTracing } from '../src/observability/tracing';

describe('closing the tracer', () => {
  let collector: Server | undefined;
  afterEach(() => {
    collector?.closeAllConnections();
    collector?.close();
  });

  it('waits a bounded time for a collector that never answers', async () => {
    let received = 0;
    let exportEnded = false;
    // Accepts the export and never answers it: the exporter's own timeout is 10 s.
    collector = createServer((request) => {
      received++;
      request.socket.on('close', () => {
        exportEnded = true;
      });
    });
    await new Promise<void>((resolve) => collector?.listen(0, '127.0.0.1', resolve));
    const { port } = collector.address() as AddressInfo;
    const tracing = startTracing(
      { url: `http://127.0.0.1:${port}/v1/traces`, captureContent: false },
      'test',
    );
    tracing.tracer.startSpan('invoke_agent').end();
    await tracing.close();
    // Before: close waited for the exporter to give up on the export (its timeout ends the request); now it
    // returns while the export is still unanswered.
    expect(received).toBe(1);
    expect(exportEnded).toBe(false);
  });
});
