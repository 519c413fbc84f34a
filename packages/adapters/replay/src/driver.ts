import { basename } from 'node:path';
import { OPENCODE_CAPABILITIES } from '@agentlane/adapter-opencode/translate';
import { type JsonValue, normalizeNegotiatedCapabilities } from '@agentlane/contract';
import type { EngineDriver, EngineSession, TurnInput, TurnIO, TurnOutcome } from '@agentlane/engine-kit';
import { frameTimes, readTrace } from './trace.js';
import { translatorFor } from './translators.js';
import { collectTurnIds, withTurnIds } from './turn-ids.js';

export interface ReplayDriverConfig {
  /** A JSONL trace path, or the frames themselves. */
  trace: string | JsonValue[];
  /** Whose translator reads the frames: "opencode" or "acp". */
  provider: string;
  /** 1 plays with the recorded timing, 2 twice as fast; 0 or Infinity as fast as possible (default 1). */
  speed?: number;
  name?: string;
  label?: string;
}

/**
 * The replay engine: every turn plays the recorded native frames through `TurnIO.emit`, so they are stored
 * and translated by the real translator of the engine that produced them, exactly as a live run would be.
 * The user's prompt is not sent anywhere; the recording answers. The first turn of a session plays the frames
 * as recorded; later turns (and every turn of a session reopened from its bound native session)
 * suffix the ids a turn mints with `-<runId>`, as a real engine mints new ones each turn.
 */
export function createDriver(config: ReplayDriverConfig): EngineDriver {
  const frames = typeof config.trace === 'string' ? readTrace(config.trace) : config.trace;
  const times = frameTimes(frames);
  const turnIds = collectTurnIds(frames);
  const traceName = typeof config.trace === 'string' ? basename(config.trace) : 'inline trace';
  const speed = config.speed ?? 1;
  const provider = config.provider;
  const translator = translatorFor(provider);
  const capabilities =
    provider === 'opencode'
      ? OPENCODE_CAPABILITIES
      : normalizeNegotiatedCapabilities({ streamingText: true });
  return {
    name: config.name ?? `replay-${provider}`,
    provider,
    translator,
    label: config.label ?? `Replay of a recorded ${provider} session (${traceName})`,
    async openSession(options): Promise<EngineSession> {
      // A bound native session (not the placeholder of a new thread) was opened, and played, before.
      let played = options.previous?.nativeSessionId ? 1 : 0;
      return {
        binding: {
          provider,
          nativeSessionId: `replay-${options.threadId}`,
          runtimeBinding: { replay: traceName },
          protocolVersion: 'replay',
          capabilities,
        },
        runTurn: (turn: TurnInput, io: TurnIO) => {
          const turnFrames = played++ === 0 ? frames : withTurnIds(frames, turnIds, `-${turn.runId}`);
          return play(turnFrames, times, speed, io);
        },
        close: async () => {},
      };
    },
  };
}

async function play(frames: JsonValue[], times: number[], speed: number, io: TurnIO): Promise<TurnOutcome> {
  const paced = speed > 0 && Number.isFinite(speed);
  const start = Date.now();
  for (const [index, frame] of frames.entries()) {
    if (io.signal.aborted) return { outcome: 'cancelled' };
    if (paced) {
      const due = start + (times[index] ?? 0) / speed;
      const wait = due - Date.now();
      if (wait > 0 && !(await sleep(wait, io.signal))) return { outcome: 'cancelled' };
    }
    io.emit(frame);
  }
  return { outcome: 'completed' };
}

/** Resolves true after `ms`, false as soon as the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
