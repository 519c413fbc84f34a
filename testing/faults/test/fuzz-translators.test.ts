import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { acpTranslator } from '@agentlane/adapter-acp';
import { openCodeTranslator } from '@agentlane/adapter-opencode';
import type { JsonValue } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { fuzzTranslator } from '../src/frame-fuzz';

/** Recorded frames of a real engine, the seeds the fuzz mutates. */
const fixture = (path: string): JsonValue[] =>
  readFileSync(fileURLToPath(new URL(`../../../packages/adapters/${path}`, import.meta.url)), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as JsonValue);

const COUNT = Number(process.env.FUZZ_FRAMES ?? 100_000);

describe('fuzzed native frames into the translators', { timeout: 120_000 }, () => {
  for (const [name, translator, path] of [
    ['ACP', acpTranslator, 'acp/test/__fixtures__/claude-agent-acp.wire.jsonl'],
    ['OpenCode', openCodeTranslator, 'opencode/test/__fixtures__/opencode.jsonl'],
  ] as const) {
    it(`${name}: ${COUNT} frames, 0 throws, junk frames become harness.warning`, () => {
      const report = fuzzTranslator(translator as never, fixture(path), COUNT);
      console.info(
        `[faults] ${name} translator fuzz: ${JSON.stringify({ ...report, firstThrow: undefined })}`,
      );
      expect(report.firstThrow).toBeUndefined();
      expect(report.frames).toBe(COUNT);
      expect(report.throws).toBe(0);
      expect(report.junk).toBeGreaterThan(0);
      expect(report.junkWithoutWarning).toBe(0);
    });
  }
});
