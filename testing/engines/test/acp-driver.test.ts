import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AcpEngineConfig,
  claudeCodePreset,
  codexPreset,
  createDriver,
  geminiPreset,
} from '@agentlane/adapter-acp';
import {
  type FakeModelServer,
  startFakeModelServer,
  toolThenAnswer,
  writeFileTool,
} from '@agentlane/fake-model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriverHarness, engineEntries, kindsOf, missingEngine } from '../src/index';

const entries = engineEntries();
const root = mkdtempSync(join(tmpdir(), 'agentlane-acp-e2e-'));

type PresetName = 'claude' | 'codex' | 'gemini';
const presets: Record<
  PresetName,
  (o: { entry: string; modelBaseUrl: string; homeRoot: string }) => AcpEngineConfig
> = {
  claude: claudeCodePreset,
  codex: codexPreset,
  gemini: geminiPreset,
};

const ENGINES = (['claude', 'codex', 'gemini'] as const).filter((name) => {
  if (entries[name]) return true;
  if (process.env.CI === 'true') throw new Error(missingEngine(name, entries));
  console.warn(`skipping ${name}: ${missingEngine(name, entries)}`);
  return false;
});

describe.each(ENGINES)('ACP driver with the real %s engine against the fake model server', (name) => {
  let model: FakeModelServer;
  let workDir: string;
  const config = () =>
    presets[name]({ entry: entries[name]!, modelBaseUrl: model.url, homeRoot: join(root, 'homes') });

  beforeAll(async () => {
    workDir = mkdtempSync(join(root, `${name}-work-`));
    model = await startFakeModelServer({
      scenario: toolThenAnswer({
        tool: writeFileTool(join(workDir, 'hello.txt'), 'hello from agentlane\n'),
        answer: 'Done: hello.txt is written.',
      }),
    });
  });
  afterAll(async () => {
    await model.close();
  });

  it('runs a prompt that writes a file after an approval, and translates it', async () => {
    const harness = new DriverHarness(createDriver(config()), workDir);
    try {
      const { outcome, frames } = await harness.turn('Create hello.txt with a greeting.', {
        approve: 'allow_once',
      });
      const events = harness.translate([
        ...harness.frames.slice(0, harness.frames.length - frames.length),
        ...frames,
      ]);
      const kinds = kindsOf(events);
      console.log(`${name} produced: ${kinds.join(', ')}`);
      expect(outcome).toEqual({ outcome: 'completed' });
      expect(existsSync(join(workDir, 'hello.txt'))).toBe(true);
      expect(readFileSync(join(workDir, 'hello.txt'), 'utf8')).toContain('hello from agentlane');
      for (const k of [
        'session.started',
        'turn.started',
        'tool.started',
        'tool.completed',
        'approval.requested',
        'approval.resolved',
        'message.completed',
        'turn.completed',
      ]) {
        expect(kinds, k).toContain(k);
      }
      const last = events.filter((e) => e.draft.kind === 'message.completed').at(-1);
      expect(last?.draft.payload).toMatchObject({ role: 'assistant', text: 'Done: hello.txt is written.' });
      expect(model.modelRequests().length).toBeGreaterThanOrEqual(2);
    } finally {
      await harness.close();
    }
  });
});
