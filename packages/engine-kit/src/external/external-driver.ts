import { type JsonValue, normalizeNegotiatedCapabilities } from '@agentlane/contract';
import type { EngineDriver, EngineSession, TurnIO, TurnOutcome } from '../driver.js';
import type { ExternalFrame } from './external-frames.js';
import { EXTERNAL_PROVIDER, externalTranslator } from './external-translator.js';

/** How long a turn waits for its runtime's next frames before it fails (the runtime is gone). */
export const DEFAULT_EXTERNAL_IDLE_MS = 120_000;
/** How long a POST waits for a just-created run to be claimed and its turn opened in this process. */
export const DEFAULT_EXTERNAL_OPEN_WAIT_MS = 5_000;

export interface ExternalDriverOptions {
  name: string;
  label?: string;
  idleTimeoutMs?: number;
}

export type ExternalAccept = 'accepted' | 'not_executing' | 'not_stored';

/** The side of an external engine the HTTP API calls: frames of a run whose turn this process has open. */
export interface ExternalTurns {
  /**
   * Appends frames to the run's source lane (in order) and, with `end`, ends its turn. Waits up to `waitMs`
   * for the turn to open (a run just created is claimed within the lane's poll interval); `not_executing`
   * when it is not open in this process (queued elsewhere, ended, or never an external engine's).
   * `accepted` only once the frames are stored in the source lane (a crash after the answer loses nothing the
   * runtime was told was accepted); `not_stored` when storing them failed (the run fails).
   */
  accept(
    runId: string,
    frames: readonly ExternalFrame[],
    end?: TurnOutcome,
    waitMs?: number,
  ): Promise<ExternalAccept>;
}

interface OpenTurn {
  io: TurnIO;
  end(outcome: TurnOutcome): void;
  touch(): void;
}

/**
 * An engine whose turns are run by a runtime outside this process (another language, another machine): the
 * lane claims the run as for any engine, opens a turn that waits, and the runtime pushes its canonical event
 * drafts and audit rows through `POST /runs/:id/events` until it sends the end. The frames are stored and
 * translated like any engine's (`externalTranslator`), so the run has eventIds derived from the runtime's
 * own keys, revisions, canonicalization and `run.canonicalized`. A turn whose runtime sends nothing for
 * `idleTimeoutMs` fails; run.cancel ends it `cancelled` (later pushes get `not_executing`).
 */
export function createExternalDriver(
  options: ExternalDriverOptions,
): EngineDriver & { external: ExternalTurns } {
  const idleMs = options.idleTimeoutMs ?? DEFAULT_EXTERNAL_IDLE_MS;
  if (!(Number.isInteger(idleMs) && idleMs > 0))
    throw new Error(`idleTimeoutMs must be a positive integer (got ${idleMs})`);
  const open = new Map<string, OpenTurn>();
  const waiting = new Map<string, Set<() => void>>();

  const opened = (runId: string) => {
    for (const wake of waiting.get(runId) ?? []) wake();
    waiting.delete(runId);
  };

  const waitOpen = (runId: string, waitMs: number): Promise<OpenTurn | undefined> => {
    const now = open.get(runId);
    if (now || waitMs <= 0) return Promise.resolve(now);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        waiting.get(runId)?.delete(wake);
        resolve(open.get(runId));
      };
      const timer = setTimeout(wake, waitMs);
      timer.unref?.();
      const set = waiting.get(runId) ?? new Set();
      set.add(wake);
      waiting.set(runId, set);
    });
  };

  const session = (threadId: string): EngineSession => ({
    binding: {
      provider: EXTERNAL_PROVIDER,
      nativeSessionId: threadId,
      runtimeBinding: {},
      protocolVersion: 'external/1',
      capabilities: normalizeNegotiatedCapabilities({}),
    },
    runTurn: (turn, io) =>
      new Promise<TurnOutcome>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const end = (outcome: TurnOutcome) => {
          if (open.get(turn.runId) !== entry) return;
          open.delete(turn.runId);
          clearTimeout(timer);
          io.signal.removeEventListener('abort', onAbort);
          resolve(outcome);
        };
        const touch = () => {
          clearTimeout(timer);
          timer = setTimeout(
            () => end({ outcome: 'failed', error: `the external runtime sent nothing for ${idleMs} ms` }),
            idleMs,
          );
          timer.unref?.();
        };
        const onAbort = () => end({ outcome: 'cancelled' });
        const entry: OpenTurn = { io, end, touch };
        open.set(turn.runId, entry);
        io.signal.addEventListener('abort', onAbort, { once: true });
        touch();
        if (io.signal.aborted) onAbort();
        else opened(turn.runId);
      }),
    close: async () => undefined,
  });

  return {
    name: options.name,
    provider: EXTERNAL_PROVIDER,
    label: options.label ?? `${options.name} (an external runtime)`,
    translator: externalTranslator,
    openSession: async ({ threadId }) => session(threadId),
    external: {
      async accept(runId, frames, end, waitMs = DEFAULT_EXTERNAL_OPEN_WAIT_MS) {
        const turn = await waitOpen(runId, waitMs);
        if (!turn) return 'not_executing';
        for (const frame of frames) turn.io.emit(frame as unknown as JsonValue);
        turn.touch();
        try {
          await turn.io.stored?.();
        } catch {
          return 'not_stored';
        }
        if (end) turn.end(end);
        return 'accepted';
      },
    },
  };
}

/** The external side of a driver, when it is an external engine's. */
export function externalTurnsOf(driver: object | undefined): ExternalTurns | undefined {
  const external = (driver as { external?: ExternalTurns } | undefined)?.external;
  return external && typeof external.accept === 'function' ? external : undefined;
}
