import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { agentlaneFromSource } from '@agentlane/test-engines';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAuditCommand } from '../src/commands/audit';

describe('agentlane audit SESSION', () => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    res.setHeader('content-type', 'application/json');
    if (!url.pathname.endsWith('/sessions/s1/audit')) {
      res.statusCode = 404;
      res.end(JSON.stringify({ error: { code: 'not_found', message: 'no such session' } }));
      return;
    }
    const second = url.searchParams.get('cursor') === 'c2';
    res.end(
      JSON.stringify({
        calls: second ? [{ seq_within_turn: 3 }] : [{ seq_within_turn: 1 }, { seq_within_turn: 2 }],
        nextCursor: second ? null : 'c2',
      }),
    );
  });
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('follows the cursor and prints one row per line', async () => {
    const lines: string[] = [];
    const n = await runAuditCommand({ server: base, session: 's1', write: (l) => lines.push(l) });
    expect(n).toBe(3);
    expect(lines.map((l) => (JSON.parse(l) as { seq_within_turn: number }).seq_within_turn)).toEqual([
      1, 2, 3,
    ]);
    expect(seen.at(-1)).toContain('cursor=c2');
  });

  it('an unknown session is a one-line error', async () => {
    await expect(runAuditCommand({ server: base, session: 'nope', write: () => {} })).rejects.toThrow(
      /404 no such session/,
    );
  });
});

describe('agentlane audit SESSION | head -c 1', () => {
  // Pages of rows without end: only a reader that stops early ends the command.
  // Each page names a new cursor: a repeated one ends the command with an error.
  let page = 0;
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    const calls = Array.from({ length: 500 }, (_, i) => ({ seq_within_turn: i, text: 'x'.repeat(200) }));
    res.end(JSON.stringify({ calls, nextCursor: `more-${++page}` }));
  });
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('ends quietly (exit 0, no stack) when its reader closes the pipe', async () => {
    const child = spawn(process.execPath, agentlaneFromSource(['audit', 's1', '--server', base]), {
      env: { ...process.env, AGENTLANE_TOKEN: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    // Like `head -c 1`: read the first chunk, then close the pipe.
    child.stdout.once('data', () => child.stdout.destroy());
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(status).toBe(0);
  }, 60_000);
});
