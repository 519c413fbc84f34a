import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineConfig } from '../src/config';
import { probeOffers } from '../src/engine-probe';
import { discoverEngines } from '../src/engine-registry';

describe('engine discovery', () => {
  it('offers the built-in engine per provider key variable, with base URLs honoured and no key in the entry', async () => {
    const offers = await discoverEngines(
      {
        ANTHROPIC_API_KEY: 'sk-ant-test',
        GEMINI_API_KEY: 'gm-test',
        GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9/v1beta',
      },
      process.cwd(),
    );
    const builtin = offers.filter((o) => o.entry.type === 'builtin');
    expect(builtin.map((o) => [o.entry.name, o.why])).toEqual([
      ['builtin-anthropic', 'ANTHROPIC_API_KEY is set'],
      ['builtin-google', 'GEMINI_API_KEY is set, GOOGLE_GEMINI_BASE_URL names the endpoint'],
    ]);
    expect(builtin[1]?.entry).toMatchObject({ api: 'google', baseURL: 'http://127.0.0.1:9/v1beta' });
    // GEMINI_API_KEY is not the variable the runtime reads: the key is handed over in memory only.
    expect(builtin[1]?.inMemory).toEqual({ apiKey: 'gm-test' });
    expect(JSON.stringify(builtin.map((o) => o.entry))).not.toContain('-test');
    expect(await discoverEngines({}, process.cwd())).not.toContainEqual(
      expect.objectContaining({ entry: expect.objectContaining({ type: 'builtin' }) }),
    );
  });

  it('does not offer an engine whose start probe fails, and says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probe-'));
    const quits = join(dir, 'quits.mjs');
    writeFileSync(quits, 'process.stderr.write("no model configured\\n"); process.exit(3);\n');
    const entry = { name: 'quitter', type: 'acp', command: process.execPath, args: [quits] } as EngineConfig;
    const lines: string[] = [];
    const result = await probeOffers([{ entry, why: 'found for the test', env: [] }], {
      timeoutMs: 10_000,
      progress: (l) => lines.push(l),
    });
    expect(result.drivers).toEqual([]);
    expect(result.unavailable).toHaveLength(1);
    expect(result.unavailable[0]?.name).toBe('quitter');
    expect(result.unavailable[0]?.reason).toMatch(/no model configured|exit/);
    expect(lines).toEqual(['agentlane: checking engine quitter (found for the test)…']);
  }, 30_000);
});
