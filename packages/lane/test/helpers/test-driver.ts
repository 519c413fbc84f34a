import type { JsonValue } from '@agentlane/contract';
import type { EngineDriver, EngineSession, TurnIO, TurnOutcome } from '@agentlane/engine-kit';
import { createTestTranslator } from './test-translator';

/**
 * A driver whose "engine" follows a script in the prompt, one command per line:
 *   delta <text> | snapshot <id> <text> | big <chars> | sleep <ms> | deltas <count> <ms-between>
 *   approval <id> | question <id> (emits a request, waits for the answer, says what it got and goes on; an
 *   approval cancelled by nobody ends the turn cancelled) | fail <message> | throw <message> | wait-cancel
 *   die (the turn completes, then the session's "process" is gone: isAlive() turns false)
 *   ignore-cancel (ignores the run's abort signal: goes on until the session is closed, i.e. its "process" is
 *   killed, then emits a late delta and returns completed; at most 60 s)
 * `closed` counts session closes; `emitBetweenTurns(threadId, frame)` emits through the open-time emit of the
 * thread's latest session (as an engine does when it sends frames while no turn runs).
 */
export function createTestDriver(options: { name?: string; spinMs?: number } = {}): EngineDriver & {
  opened: number;
  closed: number;
  emitBetweenTurns(threadId: string, frame: JsonValue): void;
} {
  const openEmits = new Map<string, (frame: JsonValue) => void>();
  // Each driver instance stands for one engine process: its runtime binding differs from any other's.
  const instance = Math.random().toString(36).slice(2, 10);
  const driver = {
    name: options.name ?? 'test',
    provider: 'test',
    label: 'Test engine',
    translator: createTestTranslator(options.spinMs ?? 0),
    opened: 0,
    closed: 0,
    emitBetweenTurns(threadId: string, frame: JsonValue) {
      const emit = openEmits.get(threadId);
      if (!emit) throw new Error(`no session of thread ${threadId} was opened`);
      emit(frame);
    },
    async openSession(o: Parameters<EngineDriver['openSession']>[0]): Promise<EngineSession> {
      driver.opened++;
      const nativeSessionId = o.previous?.nativeSessionId ?? `native-${o.threadId}`;
      o.emit({
        harness: 'session.bound',
        origin: o.previous ? 'load' : 'new',
        generation: o.generation,
        nativeSessionId,
        capabilities: {} as never,
      } as unknown as JsonValue);
      let alive = true;
      openEmits.set(o.threadId, (frame) => o.emit(frame));
      let markClosed = () => {};
      const closedSignal = new Promise<void>((resolve) => {
        markClosed = resolve;
      });
      return {
        binding: {
          provider: 'test',
          nativeSessionId,
          runtimeBinding: { pid: process.pid, instance, opened: driver.opened },
          protocolVersion: '1',
          capabilities: {} as never,
        },
        runTurn: (turn, io) =>
          runScript(
            turn.prompt,
            io,
            () => {
              alive = false;
            },
            closedSignal,
          ),
        close: async () => {
          driver.closed++;
          alive = false;
          markClosed();
        },
        isAlive: () => alive,
      };
    },
  };
  return driver;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });

async function runScript(
  prompt: string,
  io: TurnIO,
  die: () => void,
  closed: Promise<void>,
): Promise<TurnOutcome> {
  for (const line of prompt.split('\n')) {
    if (io.signal.aborted) return { outcome: 'cancelled' };
    const [cmd, ...args] = line.trim().split(' ');
    switch (cmd) {
      case 'delta':
        io.emit({ t: 'delta', text: args.join(' ') });
        break;
      case 'snapshot':
        io.emit({ t: 'snapshot', id: args[0] ?? 's', text: args.slice(1).join(' ') });
        break;
      case 'big':
        io.emit({ t: 'big', text: 'x'.repeat(Number(args[0])) });
        break;
      case 'sleep':
        await sleep(Number(args[0]), io.signal);
        break;
      case 'deltas': {
        const count = Number(args[0]);
        const gap = Number(args[1] ?? 0);
        for (let i = 0; i < count && !io.signal.aborted; i++) {
          io.emit({ t: 'delta', text: `d${i} ` });
          if (gap > 0) await sleep(gap, io.signal);
        }
        break;
      }
      case 'approval': {
        io.emit({ t: 'approval', id: args[0] ?? 'a1' });
        const given = await io.awaitApproval(args[0] ?? 'a1');
        // A request cancelled by someone (not the run's own abort) is an answer: the turn says so and goes on.
        if (given.outcome === 'cancelled' && (io.signal.aborted || !given.answeredBy))
          return { outcome: 'cancelled' };
        io.emit({ t: 'delta', text: `approval ${args[0] ?? 'a1'}: ${given.outcome} by ${given.answeredBy}` });
        break;
      }
      case 'question': {
        io.emit({ t: 'question', id: args[0] ?? 'q1' });
        const given = await io.awaitQuestion(args[0] ?? 'q1');
        if (io.signal.aborted) return { outcome: 'cancelled' };
        io.emit({ t: 'delta', text: `question ${args[0] ?? 'q1'}: ${given.outcome} by ${given.answeredBy}` });
        break;
      }
      case 'wait-cancel':
        await sleep(60_000, io.signal);
        return { outcome: 'cancelled' };
      case 'fail':
        return { outcome: 'failed', error: args.join(' ') };
      case 'throw':
        throw new Error(args.join(' '));
      case 'die':
        die();
        break;
      case 'ignore-cancel':
        // A hostile engine: the abort signal changes nothing, only killing its process ends the turn.
        await Promise.race([closed, sleep(60_000)]);
        io.emit({ t: 'delta', text: 'late' });
        return { outcome: 'completed' };
      default:
        break;
    }
  }
  return io.signal.aborted ? { outcome: 'cancelled' } : { outcome: 'completed' };
}
