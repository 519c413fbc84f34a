import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCanonicalEvent } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { translateTrace } from '../src/commands/translate';
import { acpWireFixture, scratchDir, translateFlags } from './translate-setup';

const fixture = acpWireFixture;
const dir = scratchDir('agentlane-translate-');
const flags = translateFlags;

describe('agentlane translate', () => {
  it('prints the canonical events of a recorded ACP trace as valid JSONL', async () => {
    const lines: string[] = [];
    const count = await translateTrace(fixture, flags, (l) => lines.push(l));
    expect(count).toBe(lines.length);
    const events = lines.map((l) => JSON.parse(l) as unknown);
    for (const e of events) expect(parseCanonicalEvent(e).ok).toBe(true);
    const kinds = events.map((e) => (e as { kind: string }).kind);
    expect(kinds).toContain('session.started');
    expect(kinds).toContain('file.changed');
    expect(kinds.at(-1)).toBe('turn.completed');
  });

  it('reports lines that are not JSON and goes on; an unknown engine is a clear error', async () => {
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, 'not json\n{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}\n');
    const errors: string[] = [];
    const lines: string[] = [];
    await translateTrace(
      file,
      flags,
      (l) => lines.push(l),
      (l) => errors.push(l),
    );
    expect(errors[0]).toMatch(/bad\.jsonl:1: not JSON/);
    expect(lines.some((l) => l.includes('"turn.completed"'))).toBe(true);
    await expect(translateTrace(file, { ...flags, engine: 'no-such-engine' })).rejects.toThrow(/no adapter/);
  });
});

describe('agentlane translate, a frame nested too deep', () => {
  it.each(['acp', 'opencode'])(
    '--engine %s reports the line and goes on, no stack overflow',
    async (engine) => {
      const file = join(dir, `deep-${engine}.jsonl`);
      const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      writeFileSync(file, `${deep}\n{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}\n`);
      const errors: string[] = [];
      await translateTrace(
        file,
        { ...flags, engine },
        () => {},
        (l) => errors.push(l),
      );
      expect(errors.filter((l) => !l.startsWith('agentlane translate:'))).toEqual([
        `${file}:1: frame nested deeper than 256 levels, skipped`,
      ]);
    },
  );

  it('a frame exactly at the limit still translates', async () => {
    const file = join(dir, 'at-limit.jsonl');
    writeFileSync(file, `${'['.repeat(256)}${']'.repeat(256)}\n`);
    const errors: string[] = [];
    await translateTrace(
      file,
      flags,
      () => {},
      (l) => errors.push(l),
    );
    expect(errors.filter((l) => !l.startsWith('agentlane translate:'))).toEqual([]);
  });
});
