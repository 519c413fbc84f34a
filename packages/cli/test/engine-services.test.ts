import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineServices } from '../src/engine-services';

describe('engine services (what the composition root gives an adapter)', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentlane-services-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('opens one checkpoint saver per database, the server database by default, and closes them together', async () => {
    const server = join(dir, 'server.db');
    const services = engineServices(server);
    const first = services.checkpoints();
    expect(first).toBeDefined();
    expect(services.checkpoints(server)).toBe(first);
    const other = services.checkpoints(join(dir, 'own.db'));
    expect(other).not.toBe(first);
    const saver = await first;
    expect((await saver?.list({ sessionId: 'nobody', limit: 1 }))?.items).toEqual([]);
    await services.close();
  });

  it('has no saver without a database, unless the entry names one', async () => {
    const services = engineServices(undefined);
    expect(services.checkpoints()).toBeUndefined();
    const named = services.checkpoints(join(dir, 'named.db'));
    expect(await named).toBeDefined();
    await services.close();
  });
});
