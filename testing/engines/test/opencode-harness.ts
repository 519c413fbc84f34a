import { openCodeTranslator, resolveOpenCodeBinary } from '@agentlane/adapter-opencode';
import type { JsonValue } from '@agentlane/contract';
import type {
  ApprovalAnswer,
  NativeFrameRecord,
  QuestionAnswer,
  TranslatedEvent,
  TurnIO,
} from '@agentlane/engine-kit';

/** The binary, or why the OpenCode tests cannot run here (they must run in CI). */
export function openCodeBinaryOrReason(): { binary?: string; reason?: string } {
  try {
    return { binary: resolveOpenCodeBinary() };
  } catch (error) {
    if (process.env.CI === 'true') throw error;
    return { reason: (error as Error).message };
  }
}

/** A TurnIO that records frames like the lane does and lets the test answer approvals. */
export class RecordingIO implements TurnIO {
  readonly frames: NativeFrameRecord[] = [];
  readonly abort = new AbortController();
  readonly signal = this.abort.signal;
  private readonly approvals = new Map<string, (answer: ApprovalAnswer) => void>();
  private readonly asked: ((id: string) => void)[] = [];
  approvalAnswer: (approvalId: string) => ApprovalAnswer | null = () => ({
    outcome: 'selected',
    optionId: 'once',
    answeredBy: 'test',
  });
  onFrame: (frame: JsonValue) => void = () => {};

  constructor(private readonly runId = 'run_e2e') {}

  emit(frame: JsonValue): void {
    this.frames.push({
      runId: this.runId,
      nativeSeq: this.frames.length + 1,
      receivedAt: new Date().toISOString(),
      frame,
    });
    this.onFrame(frame);
  }

  awaitApproval(approvalId: string): Promise<ApprovalAnswer> {
    for (const listener of this.asked) listener(approvalId);
    return new Promise((resolve) => {
      const given = this.approvalAnswer(approvalId);
      const answer = (a: ApprovalAnswer) => {
        // The lane records the answer as a harness frame before it reaches the engine.
        this.emit({ harness: 'approval.answered', approvalId, ...a } as unknown as JsonValue);
        resolve(a);
      };
      if (given) answer(given);
      else this.approvals.set(approvalId, answer);
      this.signal.addEventListener('abort', () => answer({ outcome: 'cancelled' }), { once: true });
    });
  }

  awaitQuestion(questionId: string): Promise<QuestionAnswer> {
    const answer: QuestionAnswer = { outcome: 'declined' };
    this.emit({ harness: 'question.answered', questionId, ...answer } as unknown as JsonValue);
    return Promise.resolve(answer);
  }

  translate(): TranslatedEvent[] {
    const ctx = { threadId: 'thr_e2e', runId: this.runId, turnId: this.runId, provider: 'opencode' };
    let state = openCodeTranslator.initialState(ctx);
    const events: TranslatedEvent[] = [];
    for (const frame of this.frames) {
      const step = openCodeTranslator.translate(frame, state, ctx);
      state = step.state;
      events.push(...step.events);
    }
    events.push(...openCodeTranslator.finish(state, ctx).events);
    return events;
  }
}

/** The lane's view: the latest revision per key. */
export function kindsOf(events: TranslatedEvent[]): string[] {
  return events.map((e) => e.draft.kind);
}
