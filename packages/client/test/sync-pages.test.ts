import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SyncRequest, SyncResponse } from '@agentlane/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentlaneClient } from '../src';

// syncSessionAll against a server that answers in pages: it sends the client's changes once, then follows
// `more` with the merged vector and `cursor`, and returns one answer holding every page.

const change = (clientId: string, version: number) => ({
  clientId,
  key: `k${version}`,
  value: version,
  version,
  vector: { [clientId]: version },
});
const conflict = (key: string) => ({ key, changes: [] });

let pages: SyncResponse[] = [];
const seen: SyncRequest[] = [];
let server: Server;
let client: AgentlaneClient;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    seen.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    res.writeHead(200, { 'content-type': 'application/json' });
    // The last page is answered again to whatever follows it.
    res.end(JSON.stringify(pages.length > 1 ? pages.shift() : pages[0]));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new AgentlaneClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('AgentlaneClient.syncSessionAll', () => {
  it('follows `more` with the merged vector and the cursor, and returns every page as one answer', async () => {
    seen.length = 0;
    pages = [
      {
        vector: { me: 1, a: 1 },
        changes: [change('a', 1)],
        conflicts: [conflict('x')],
        more: true,
        cursor: 'kx',
      },
      {
        vector: { me: 1, a: 2, b: 1 },
        changes: [change('a', 2), change('b', 1)],
        conflicts: [],
        more: true,
        cursor: 'e',
      },
      { vector: { me: 1, a: 2, b: 2 }, changes: [change('b', 2)], conflicts: [] },
    ];
    const mine = { key: 'k', value: 'v', version: 1, vector: { me: 1 } };
    const all = await client.syncSessionAll('s1', { clientId: 'me', vector: { me: 1 }, changes: [mine] });
    expect(all).toEqual({
      vector: { me: 1, a: 2, b: 2 },
      changes: [change('a', 1), change('a', 2), change('b', 1), change('b', 2)],
      conflicts: [conflict('x')],
    });
    expect(seen).toEqual([
      { clientId: 'me', vector: { me: 1 }, changes: [mine] },
      { clientId: 'me', vector: { me: 1, a: 1 }, changes: [], cursor: 'kx' },
      { clientId: 'me', vector: { me: 1, a: 2, b: 1 }, changes: [], cursor: 'e' },
    ]);
  });

  it('an answer without `more` is one request, returned as it is', async () => {
    seen.length = 0;
    pages = [{ vector: { me: 1 }, changes: [], conflicts: [] }];
    expect(await client.syncSessionAll('s1', { clientId: 'me', vector: { me: 1 }, changes: [] })).toEqual({
      vector: { me: 1 },
      changes: [],
      conflicts: [],
    });
    expect(seen).toHaveLength(1);
  });

  it('a server that answers the same page again is an error, not a loop', async () => {
    pages = [{ vector: { me: 1 }, changes: [], conflicts: [], more: true, cursor: 'e' }];
    await expect(
      client.syncSessionAll('s1', { clientId: 'me', vector: { me: 1 }, changes: [] }),
    ).rejects.toThrow(/same page again/);
  });
});
