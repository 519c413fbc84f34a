import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runtimeTranslator } from '@agentlane/adapter-builtin';
import type { JsonValue } from '@agentlane/contract';
import { describeTranslatorConformance } from '@agentlane/engine-kit/testing';
import { beforeAll } from 'vitest';
import { type CorpusFixture, runCorpusTurn, startWireReplayer } from '../src/index';

// The built-in engine's recorded sources: corpus turns replayed against their recorded model exchanges (a
// plain answer, a plan with an approved write, a sub-agent, a limit that stops the loop).
const NAMES = [
  'plain-answer',
  'plan-write-approval',
  'subagent-task',
  'token-budget',
  'tool-error-bad-input',
];
const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'corpus');
const recordings: { name: string; frames: JsonValue[] }[] = [];

beforeAll(async () => {
  for (const name of NAMES) {
    const fixture = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as CorpusFixture;
    const replayer = await startWireReplayer(fixture.exchanges);
    const frames: JsonValue[] = [];
    try {
      await runCorpusTurn(fixture.input, replayer.url, frames);
    } finally {
      await replayer.close();
    }
    recordings.push({ name, frames });
  }
});

describeTranslatorConformance({ name: 'built-in engine', translator: runtimeTranslator, recordings });
