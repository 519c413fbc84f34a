import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAuditCommand } from '../src/commands/audit';

// A probe's server answered 302 to another origin: `agentlane audit` followed it (the token dropped) and
// exported that server's empty answer with exit 0.
describe('a server that redirects', () => {
  const server = createServer((_req, res) => {
    res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' });
    res.end();
  });
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is not followed: the command fails naming the redirect', async () => {
    const rows: string[] = [];
    await expect(
      runAuditCommand({ server: url, session: 's1', write: (l) => rows.push(l), progress: () => {} }),
    ).rejects.toThrow(`${url} answered 302, a redirect to http://127.0.0.1:9/elsewhere: not followed`);
    expect(rows).toEqual([]);
  });
});
