import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordedSessions } from '@agentlane/adapter-replay';
import { AgentlaneClient } from '@agentlane/client';
import type { StreamEvent } from '@agentlane/contract';

/** A recorded native trace and the translator (by provider) that reads it. */
export interface NativeFixture {
  /** Unique, file-name-like: used as the engine name and in test titles. */
  name: string;
  provider: 'opencode' | 'acp';
  trace: string;
  /** Where it comes from: the replay engine's recordings or an adapter's test fixtures. */
  source: 'recording' | 'adapter-fixture';
}

const adaptersDir = fileURLToPath(new URL('../../../../adapters', import.meta.url));

/** Native traces in the adapters' golden-test folders (their `*.expected.*` files are outputs, not traces). */
const FIXTURE_FOLDERS: { provider: NativeFixture['provider']; dir: string }[] = [
  { provider: 'acp', dir: join(adaptersDir, 'acp/test/__fixtures__') },
  { provider: 'opencode', dir: join(adaptersDir, 'opencode/test/__fixtures__') },
];

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/**
 * Every recording the replay engine offers, plus every native trace in the adapters' test fixture folders
 * that is not byte-identical to one of those recordings (the recordings are copies of some fixtures).
 */
export function nativeFixtures(): NativeFixture[] {
  const fixtures: NativeFixture[] = [];
  const seen = new Set<string>();
  for (const session of recordedSessions()) {
    seen.add(digest(session.trace));
    fixtures.push({
      name: session.name,
      provider: session.provider,
      trace: session.trace,
      source: 'recording',
    });
  }
  for (const { provider, dir } of FIXTURE_FOLDERS) {
    for (const file of readdirSync(dir).sort()) {
      if (!file.endsWith('.jsonl') || file.includes('.expected.')) continue;
      const trace = join(dir, file);
      const hash = digest(trace);
      if (seen.has(hash)) continue;
      seen.add(hash);
      fixtures.push({
        name: `fixture-${provider}-${basename(file, '.jsonl').replace(/[^A-Za-z0-9_.-]/g, '-')}`,
        provider,
        trace,
        source: 'adapter-fixture',
      });
    }
  }
  return fixtures;
}

/** The `agentlane serve` engine entries that replay each fixture as fast as possible. */
export function replayEngineEntries(fixtures: readonly NativeFixture[]) {
  return fixtures.map((fixture) => ({
    name: fixture.name,
    type: 'replay' as const,
    trace: fixture.trace,
    provider: fixture.provider,
    speed: 0,
    label: `Replay: ${basename(fixture.trace)}`,
  }));
}

/**
 * Starts a thread on the fixture's replay engine, runs one turn to its completion signal, and returns every
 * StreamEvent the server delivers for the thread: the canonical events the real translator made.
 */
export async function replayThroughServer(
  serverUrl: string,
  fixture: NativeFixture,
): Promise<{ threadId: string; frames: StreamEvent[] }> {
  const client = new AgentlaneClient({ url: serverUrl });
  const session = await client.createSession({ engine: fixture.name, title: fixture.name });
  const run = await client.createRun(session.id, { prompt: 'Replay the recording' });
  // Bounded wait for the run's completion record (speed 0 replays take well under a second).
  for (let i = 0; ; i += 1) {
    const current = await client.getRun(run.runId);
    if (current.canonicalizedAt) break;
    if (i >= 600) throw new Error(`${fixture.name}: run ${run.runId} did not complete in 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The run is settled, so the thread's rows are final: read them up to the head the stream announces.
  const frames: StreamEvent[] = [];
  const controller = new AbortController();
  let head = Number.POSITIVE_INFINITY;
  for await (const frame of client.subscribeThread(session.id, { signal: controller.signal })) {
    if (frame.type === 'stream.opened') head = frame.headDeliverySeq;
    else frames.push(frame);
    const seq = 'deliverySeq' in frame && frame.type !== 'run.status' ? (frame.deliverySeq ?? 0) : 0;
    if (seq >= head || head === 0) break;
  }
  controller.abort();
  return { threadId: session.id, frames };
}
