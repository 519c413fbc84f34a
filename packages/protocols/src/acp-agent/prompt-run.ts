import { type AgentContext, type PromptResponse, RequestError } from '@agentclientprotocol/sdk';
import type { CanonicalEvent, RunStatus, StopReason, StreamEvent } from '@agentlane/contract';
import { PAUSE_GRACE_MS } from '../run-follower.js';
import type { AcpBackend } from './backend.js';
import { asInvalidParams } from './invalid-params.js';
import { type AskedRun, askApproval, askQuestion } from './permission-requests.js';
import type { PromptEntry, SessionPrompts } from './session-prompts.js';
import { acpStopReason, SessionUpdateTranslator } from './session-updates.js';

const SETTLED = new Set<RunStatus>(['completed', 'failed']);

/** How long a settled run's stream may take to deliver the rows committed before it settled. */
const COMMITTED_WAIT_MS = 5000;

/**
 * How long the backend may stay unreachable (a remote server killed or restarting) before the prompt fails:
 * long enough for a restarted server to settle the run, short enough that the client is not left hanging.
 */
export const UNREACHABLE_MS = 30_000;

export interface PromptInput {
  backend: AcpBackend;
  client: AgentContext;
  sessionId: string;
  prompt: string;
  /** The sessions' prompts in flight (for session/cancel), and this prompt's entry there. */
  active: SessionPrompts;
  entry: PromptEntry;
  /** Default UNREACHABLE_MS. */
  unreachableMs?: number;
}

/**
 * One session/prompt: a run of the prompt, its canonical events out as session/update (approvals and
 * questions asked as session/request_permission) until it settled; the prompt's answer is its stop reason.
 */
export async function runPrompt({
  backend,
  client,
  sessionId,
  prompt,
  active,
  entry,
  unreachableMs = UNREACHABLE_MS,
}: PromptInput): Promise<PromptResponse> {
  let subscription: { close(): void } | undefined;
  let poll: NodeJS.Timeout | undefined;
  try {
    const head = await backend.head(sessionId);
    // A refusal of the run (a remote server's 400 on its own prompt rules) is the client's to fix: -32602.
    const runId = await backend.createRun(sessionId, prompt).catch((error: unknown) => {
      throw asInvalidParams(error, 'prompt') ?? error;
    });
    // A session/cancel that came while the run was being created applies to it too.
    if (active.started(entry, runId)) await backend.cancelRun(runId).catch(() => undefined);
    const run = new PromptRun({ backend, client, sessionId, runId }, head, unreachableMs);
    // Settled before the subscription heard it (signals are live only), or a signal lost in a reconnect.
    poll = setInterval(() => run.checkStatus(), 1000);
    subscription = await backend.follow(sessionId, head, (e) => run.onStreamEvent(e));
    run.checkStatus();
    return { stopReason: acpStopReason(await run.finished()) };
  } finally {
    clearInterval(poll);
    subscription?.close();
  }
}

/** The run of one prompt as the thread's stream shows it: its events in order, then its settling. */
class PromptRun {
  readonly #run: AskedRun;
  readonly #translator = new SessionUpdateTranslator();
  readonly #settled: Promise<void>;
  #settle: () => void = () => {};
  #fail: (error: Error) => void = () => {};
  /** When the backend last answered a status poll; the prompt fails once it is silent that long. */
  #reachedAt = Date.now();
  #settling = false;
  #stopReason: StopReason | undefined;
  /** The stream's last delivered row, of any run of the thread. */
  #cursor: number;
  /** The run's events are handled one at a time, in order (a permission request waits for its answer). */
  #queue = Promise.resolve();
  /** Approvals and questions the stream showed answered, as soon as it delivered the answer. */
  readonly #answered = new Set<string>();

  readonly #unreachableMs: number;

  constructor(run: AskedRun, head: number, unreachableMs: number) {
    this.#run = run;
    this.#unreachableMs = unreachableMs;
    this.#cursor = head;
    this.#settled = new Promise<void>((resolve, reject) => {
      this.#settle = resolve;
      this.#fail = reject;
    });
  }

  /** The stop reason of its turn, once it settled and every event of it went out. */
  async finished(): Promise<StopReason | undefined> {
    await this.#settled;
    await this.#queue;
    return this.#stopReason;
  }

  onStreamEvent(e: StreamEvent): void {
    if ('event' in e) {
      this.#cursor = Math.max(this.#cursor, e.deliverySeq);
      if (e.event.runId !== this.#run.runId) return;
      const event = e.event;
      if (event.kind === 'approval.resolved') this.#answered.add(event.payload.approvalId);
      else if (event.kind === 'question.resolved') this.#answered.add(event.payload.questionId);
      this.#queue = this.#queue.then(() => this.#handle(event)).catch(() => undefined);
    } else if ((e.type === 'run.status' || e.type === 'run.canonicalized') && e.runId === this.#run.runId) {
      if (SETTLED.has(e.status)) void this.#settleAfterCommitted();
    }
  }

  /** Asks the backend whether the run settled; a backend that stays unreachable fails the prompt. */
  checkStatus(): void {
    this.#run.backend.runStatus(this.#run.runId).then(
      (status) => {
        this.#reachedAt = Date.now();
        if (status && SETTLED.has(status)) void this.#settleAfterCommitted();
      },
      (error: unknown) => {
        if (Date.now() - this.#reachedAt < this.#unreachableMs) return;
        const reason = error instanceof Error ? error.message : String(error);
        this.#fail(RequestError.internalError({ reason: `the run's status is unreachable: ${reason}` }));
      },
    );
  }

  // The run's last rows may still be on their way: end after what is committed once it settled.
  async #settleAfterCommitted(): Promise<void> {
    if (this.#settling) return;
    this.#settling = true;
    let committed: number;
    try {
      committed = await this.#run.backend.head(this.#run.sessionId);
    } catch {
      // The backend went away in between: the next status poll tries again.
      this.#settling = false;
      return;
    }
    for (const deadline = Date.now() + COMMITTED_WAIT_MS; this.#cursor < committed && Date.now() < deadline; )
      await new Promise((r) => setTimeout(r, 5));
    this.#queue = this.#queue.then(this.#settle);
  }

  async #handle(event: CanonicalEvent): Promise<void> {
    const { client, sessionId } = this.#run;
    if (event.kind === 'turn.completed') this.#stopReason = event.payload.stopReason;
    for (const update of this.#translator.push(event))
      await client.notify('session/update', { sessionId, update });
    if (event.kind === 'approval.requested') {
      if (!(await this.#answeredSoon(event.payload.approvalId))) await askApproval(this.#run, event.payload);
    } else if (event.kind === 'question.requested') {
      if (!(await this.#answeredSoon(event.payload.questionId))) await askQuestion(this.#run, event.payload);
    }
  }

  /**
   * Whether a request is answered within PAUSE_GRACE_MS by someone else: a recording that holds its own
   * answer (the replay engine), a policy, another client. The ACP client is asked only otherwise, as the
   * other protocols pause only then: a permission request it can no longer change would only mislead it.
   */
  async #answeredSoon(id: string): Promise<boolean> {
    for (const deadline = Date.now() + PAUSE_GRACE_MS; !this.#answered.has(id) && Date.now() < deadline; )
      await new Promise((r) => setTimeout(r, 10));
    return this.#answered.has(id);
  }
}
