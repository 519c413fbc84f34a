import { randomUUID } from 'node:crypto';
import { type CanonicalEvent, type JsonValue, SCHEMA_VERSION } from '@agentlane/contract';
import { expect, it } from 'vitest';
import { type EventWrite, type Store, StoreError } from '../../src/index';
import type { SqlStoreOptions } from '../../src/sql/sql-store';

/** One isolated, migrated, empty store plus the backdoors the suite needs. */
export interface StoreFixture {
  store: Store;
  /** Rewrites one frame row in place with plain SQL, bypassing the store (the watermark must catch it). */
  rewriteFrame(runId: string, nativeSeq: number, frame: JsonValue): Promise<void>;
  /** Which SQL the raw statements of the suite speak. */
  dialect: 'sqlite' | 'postgres';
  /** Runs one statement directly on the database, bypassing the store (`?` placeholders). */
  execSql(sql: string, params?: (string | number | null)[]): Promise<void>;
  /** Reads rows directly from the database, bypassing the store (`?` placeholders). */
  querySql(sql: string, params?: (string | number | null)[]): Promise<Record<string, unknown>[]>;
  /** Another store on the same database: its own connections, as a second process would have. */
  openPeer(options?: SqlStoreOptions): Promise<Store>;
  /** Closes everything the fixture opened and removes its data (temp dir, schema). */
  dispose(): Promise<void>;
}

export interface StoreSuiteOptions {
  /** Known gaps of a backend: test name → reason. Printed, never silent. */
  skips?: Record<string, string>;
}

/** What a role's tests get: the fixture of the running test, and the suite's helpers. */
export interface SuiteContext {
  /** Declares a test (or its declared skip); it runs with the fresh fixture of its own. */
  test(name: string, fn: (fixture: { store: Store; fx: StoreFixture }) => Promise<void>): void;
  /** A new thread of the current store. */
  newThread(engine?: string): Promise<string>;
  /** A new queued run of a thread. */
  newRun(threadId: string): Promise<string>;
  /** A message.delta event to append. */
  event(threadId: string, runId: string, seq: number, delta?: string, eventId?: string): EventWrite;
  /** The StoreError code a promise rejects with (fails the test if it resolves or throws something else). */
  code(promise: Promise<unknown>): Promise<string>;
}

/** The helpers over the fixture `current()` returns (set up by the suite's beforeEach). */
export function suiteContext(
  backend: string,
  current: () => StoreFixture,
  options: StoreSuiteOptions,
): SuiteContext {
  const test: SuiteContext['test'] = (name, fn) => {
    const run = () => fn({ store: current().store, fx: current() });
    const reason = options.skips?.[name];
    if (reason) {
      console.info(`[store suite: ${backend}] skipped "${name}": ${reason}`);
      it.skip(`${name} (declared gap: ${reason})`, run);
    } else {
      it(name, run);
    }
  };

  const newThread = async (engine = 'fake'): Promise<string> => {
    const threadId = `thr_${randomUUID()}`;
    await current().store.createThread({ threadId, engine, title: null, workDir: null, metadata: {} });
    return threadId;
  };

  const newRun = async (threadId: string): Promise<string> =>
    (await current().store.createRun({ threadId, prompt: 'hi' })).run.runId;

  const event = (
    threadId: string,
    runId: string,
    seq: number,
    delta = `d${seq}`,
    eventId?: string,
  ): EventWrite => {
    const e: CanonicalEvent = {
      schemaVersion: SCHEMA_VERSION,
      eventId: eventId ?? `${runId}:${seq}`,
      seq,
      runId,
      threadId,
      turnId: 'turn_1',
      ts: new Date().toISOString(),
      identity: { provider: 'fake' },
      kind: 'message.delta',
      payload: { messageId: 'm1', partId: 'p1', delta },
    };
    return { event: e };
  };

  const code = async (promise: Promise<unknown>): Promise<string> => {
    try {
      await promise;
    } catch (error) {
      expect(error).toBeInstanceOf(StoreError);
      return (error as StoreError).code;
    }
    throw new Error('expected a StoreError');
  };

  return { test, newThread, newRun, event, code };
}
