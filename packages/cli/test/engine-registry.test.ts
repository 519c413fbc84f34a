import { describe, expect, it } from 'vitest';
import { buildDrivers } from '../src';

describe('engine registry', () => {
  it('builds a driver per configured engine through its adapter package', async () => {
    const drivers = await buildDrivers(
      [{ name: 'my-replay', type: 'replay', provider: 'opencode', trace: [], speed: 0 }],
      { recordedSessions: false },
    );
    expect(drivers.map((d) => [d.name, d.provider])).toEqual([['my-replay', 'opencode']]);
  });

  it('adds the bundled recorded sessions as replay engines', async () => {
    const drivers = await buildDrivers([], { recordedSessions: true });
    expect(drivers.length).toBeGreaterThan(0);
    expect(new Set(drivers.map((d) => d.name)).size).toBe(drivers.length);
  });

  it('refuses two engines under one name, and names the entry an adapter rejects', async () => {
    const entry = { name: 'dup', type: 'replay' as const, provider: 'opencode', trace: [] };
    await expect(buildDrivers([entry, entry], { recordedSessions: false })).rejects.toThrow(
      /two engines .* "dup"/,
    );
    await expect(
      buildDrivers([{ name: 'bad', type: 'replay', provider: 'opencode', trace: '/no/such/trace.jsonl' }], {
        recordedSessions: false,
      }),
    ).rejects.toThrow(/^engines\[0\] \(bad\): /);
  });
});
