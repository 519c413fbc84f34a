import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { agentlaneFromSource } from '@agentlane/test-engines';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAuditCommand } from '../src/commands/audit';
import { runCheckpointsCommand } from '../src/commands/checkpoints-client';

/**
 * A server that answers every page with the same nextCursor. It gives up after REPEATS pages (answering
 * nextCursor null), so a client that does not notice the repeat ends too, and the test fails instead of hanging.
 */
const REPEATS = 20;

describe('a server that repeats its nextCursor', () => {
  let requests = 0;
  const server = createServer((_req, res) => {
    requests++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ calls: [], checkpoints: [], nextCursor: requests < REPEATS ? 'same' : null }));
  });
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('ends `audit` with an error naming the repeated cursor, after two pages', async () => {
    requests = 0;
    await expect(runAuditCommand({ server: base, session: 's1', write: () => {} })).rejects.toThrow(
      /repeated the cursor "same"/,
    );
    expect(requests).toBe(2);
  });

  it('ends `checkpoints` with an error naming the repeated cursor, after two pages', async () => {
    requests = 0;
    await expect(runCheckpointsCommand({ server: base, session: 's1', write: () => {} })).rejects.toThrow(
      /repeated the cursor "same"/,
    );
    expect(requests).toBe(2);
  });

  it('`agentlane audit` prints it as one line and exits non-zero', async () => {
    requests = 0;
    const child = spawn(process.execPath, agentlaneFromSource(['audit', 's1', '--server', base]), {
      env: { ...process.env, AGENTLANE_TOKEN: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr.trim().split('\n')).toEqual([expect.stringMatching(/^agentlane: .*repeated the cursor/)]);
    expect(status).not.toBe(0);
  }, 60_000);
});
