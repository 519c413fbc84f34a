import { approvalIdFor } from '@agentlane/adapter-acp/internal';
import type { JsonValue } from '@agentlane/contract';
import type {
  ApprovalAnswer,
  EngineDriver,
  EngineSession,
  NativeFrameRecord,
  SessionBinding,
  TranslatedEvent,
  TurnOutcome,
} from '@agentlane/engine-kit';

/** A minimal stand-in for the lane: records frames, answers approvals by policy, translates at the end. */
export class DriverHarness {
  frames: JsonValue[] = [];
  session: EngineSession | null = null;
  private runs = 0;

  constructor(
    readonly driver: EngineDriver,
    readonly workDir: string,
  ) {}

  async open(previous?: SessionBinding, generation = 1): Promise<EngineSession> {
    this.session = await this.driver.openSession({
      threadId: 'thr_e2e',
      workDir: this.workDir,
      generation,
      ...(previous ? { previous } : {}),
      emit: (frame) => this.frames.push(frame),
    });
    return this.session;
  }

  /**
   * Runs one turn like the lane does: turn.started and turn.ended harness frames around runTurn,
   * approval.answered when an approval is answered. `approve` picks the option kind to select.
   */
  async turn(
    prompt: string,
    options: { approve?: 'allow_once' | 'allow_always' | 'reject_once' | 'none'; signal?: AbortSignal } = {},
  ): Promise<{ outcome: TurnOutcome | { outcome: 'threw'; error: string }; frames: JsonValue[] }> {
    if (!this.session) await this.open();
    this.runs += 1;
    const start = this.frames.length;
    const emit = (frame: JsonValue) => this.frames.push(frame);
    emit({ harness: 'turn.started', prompt });
    const controller = new AbortController();
    options.signal?.addEventListener('abort', () => {
      emit({ harness: 'turn.cancel_requested' });
      controller.abort();
    });
    let outcome: TurnOutcome | { outcome: 'threw'; error: string };
    try {
      outcome = await this.session!.runTurn(
        { threadId: 'thr_e2e', runId: `run_${this.runs}`, turnId: `run_${this.runs}`, prompt },
        {
          emit,
          signal: controller.signal,
          awaitApproval: async (approvalId) => {
            const answer = await this.answerFor(
              approvalId,
              options.approve ?? 'allow_once',
              controller.signal,
            );
            emit({ harness: 'approval.answered', approvalId, ...answer } as unknown as JsonValue);
            return answer;
          },
          awaitQuestion: async (questionId) => {
            emit({ harness: 'question.answered', questionId, outcome: 'cancelled' });
            return { outcome: 'cancelled' };
          },
        },
      );
    } catch (error) {
      outcome = { outcome: 'threw', error: error instanceof Error ? error.message : String(error) };
    }
    const ended = outcome.outcome === 'threw' ? 'failed' : outcome.outcome;
    emit({ harness: 'turn.ended', outcome: ended });
    return { outcome, frames: this.frames.slice(start) };
  }

  private async answerFor(approvalId: string, kind: string, signal: AbortSignal): Promise<ApprovalAnswer> {
    if (kind === 'none') {
      // Never answer: wait for the cancel.
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      return { outcome: 'cancelled' };
    }
    const request = [...this.frames]
      .reverse()
      .find((f) => isPermission(f) && approvalIdFor(permissionId(f) as string | number) === approvalId);
    const options = request ? permissionOptions(request) : [];
    const option = options.find((o) => o.kind === kind) ?? options[0];
    return option
      ? { outcome: 'selected', optionId: option.optionId, answeredBy: 'test' }
      : { outcome: 'cancelled' };
  }

  /** Translates frames as the lane would (one run), returning the events. */
  translate(frames: JsonValue[], runId = 'run_1'): TranslatedEvent[] {
    const t = this.driver.translator;
    const ctx = { threadId: 'thr_e2e', runId, turnId: runId, provider: this.driver.provider };
    let state = t.initialState(ctx);
    const events: TranslatedEvent[] = [];
    frames.forEach((frame, i) => {
      const record: NativeFrameRecord = {
        runId,
        nativeSeq: i + 1,
        receivedAt: new Date().toISOString(),
        frame,
      };
      const step = t.translate(record, state, ctx);
      state = step.state;
      events.push(...step.events);
    });
    events.push(...t.finish(state, ctx).events);
    return events;
  }

  async close(): Promise<void> {
    await this.session?.close();
    this.session = null;
  }
}

type Obj = Record<string, unknown>;
function msgOf(frame: JsonValue): Obj | undefined {
  const f = frame as Obj | null;
  return f && typeof f === 'object' && typeof f.msg === 'object' ? (f.msg as Obj) : undefined;
}
function isPermission(frame: JsonValue): boolean {
  return msgOf(frame)?.method === 'session/request_permission';
}
function permissionId(frame: JsonValue): unknown {
  return msgOf(frame)?.id;
}
function permissionOptions(frame: JsonValue): { optionId: string; kind: string }[] {
  const params = msgOf(frame)?.params as Obj | undefined;
  return Array.isArray(params?.options) ? (params.options as { optionId: string; kind: string }[]) : [];
}

/** Which canonical kinds a list of events holds, in first-seen order. */
export function kindsOf(events: TranslatedEvent[]): string[] {
  return [...new Set(events.map((e) => e.draft.kind))];
}
