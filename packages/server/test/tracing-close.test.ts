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
    // Accepts the export and never answers it: the exporter's own timeout is 10 s.
    collector = createServer(() => {
      received++;
    });
    await new Promise<void>((resolve) => collector?.listen(0, '127.0.0.1', resolve));
    const { port } = collector.address() as AddressInfo;
    const tracing = startTracing(
      { url: `http://127.0.0.1:${port}/v1/traces`, captureContent: false },
      'test',
    );
    tracing.tracer.startSpan('invoke_agent').end();
    const started = Date.now();
    await tracing.close();
    // Before: SIGTERM waited for the exporter (and its retries) for as long as the grace period allowed.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(received).toBe(1);
  });
});
