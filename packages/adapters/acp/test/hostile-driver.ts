import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonValue } from '@agentlane/contract';
import type { EngineSession, NativeFrameRecord, TranslatedEvent } from '@agentlane/engine-kit';
import { afterEach } from 'vitest';
import { createDriver } from '../src';

/**
 * The real driver over a real ACP process that misbehaves as its prompt asks (__fixtures__/hostile-agent.mjs),
 * for one test file: its sessions are closed after each test. `translate` runs the driver's translator over
 * a turn's frames as run `run_1` of `threadId`. `options`: the agent's extra arguments, the driver's cap.
 */
export function hostileDriver(
  threadId: string,
  tempPrefix: string,
  options: { agentArgs?: string[]; maxPendingPermissions?: number } = {},
) {
  const agent = fileURLToPath(new URL('./__fixtures__/hostile-agent.mjs', import.meta.url));
  const root = mkdtempSync(join(tmpdir(), tempPrefix));
  const driver = createDriver({
    name: 'hostile',
    command: process.execPath,
    args: [agent, ...(options.agentArgs ?? [])],
    homeRoot: root,
    ...(options.maxPendingPermissions ? { maxPendingPermissions: options.maxPendingPermissions } : {}),
  });
  const open: EngineSession[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  /** `emit`: where the frames outside a turn go (the lane keeps them for the next run); dropped by default. */
  const openSession = async (emit: (frame: JsonValue) => void = () => {}): Promise<EngineSession> => {
    const session = await driver.openSession({ threadId, workDir: root, generation: 1, emit });
    open.push(session);
    return session;
  };
  const translate = (frames: JsonValue[]): TranslatedEvent[] => {
    const ctx = { threadId, runId: 'run_1', turnId: 'run_1', provider: driver.provider };
    let state = driver.translator.initialState(ctx);
    const events: TranslatedEvent[] = [];
    frames.forEach((frame, i) => {
      const record: NativeFrameRecord = {
        runId: 'run_1',
        nativeSeq: i + 1,
        receivedAt: new Date().toISOString(),
        frame,
      };
      const step = driver.translator.translate(record, state, ctx);
      state = step.state;
      events.push(...step.events);
    });
    return events;
  };
  return { driver, root, openSession, translate };
}
