import type { JsonObject } from '@agentlane/contract';
import type { EngineSession, SessionBinding, TurnInput, TurnIO, TurnOutcome } from '@agentlane/engine-kit';
import { asArray, asObject, asString } from '@agentlane/engine-kit';
import type { OpencodeClient } from '@opencode-ai/sdk/v2/client';
import { questionIds } from '../translate/interactions.js';
import { RESPONSE_FRAME } from '../translate/translator.js';
import type { EventFeed } from './event-feed.js';
import { parseModelRef } from './model-ref.js';

export interface SessionDeps {
  client: OpencodeClient;
  feed: EventFeed;
  directory: string;
  binding: SessionBinding;
  /** Resolves if the OpenCode process we started dies (never, when attached to a URL). */
  died: Promise<string>;
  /** How long to keep recording after the turn went idle (trailing session.updated / session.diff). */
  settleMs: number;
  /** How long an idle that came without busy waits for a busy before it ends the turn (default 2 s). */
  idleGraceMs?: number;
  /** The response of GET /config/providers (the model list), recorded into the first turn that sees it. */
  providers: Promise<JsonObject | null>;
  onClose(): Promise<void>;
}

const REPLIES = new Set(['once', 'always', 'reject']);

/** One OpenCode session bound to a thread: runs prompts, answers permissions and questions, aborts. */
export class OpenCodeSession implements EngineSession {
  readonly binding: SessionBinding;
  private readonly sessionId: string;
  /** The run's session and its child sessions (created by the task tool). */
  private readonly tree: Set<string>;
  private providersRecorded = false;

  constructor(private readonly deps: SessionDeps) {
    this.binding = deps.binding;
    this.sessionId = deps.binding.nativeSessionId ?? '';
    this.tree = new Set([this.sessionId]);
    void deps.died.then((reason) => {
      this.deadReason = reason;
    });
  }

  private deadReason: string | null = null;

  async runTurn(turn: TurnInput, io: TurnIO): Promise<TurnOutcome> {
    const { client, directory } = this.deps;
    if (io.signal.aborted) return { outcome: 'cancelled' };
    if (this.deadReason) throw new Error(this.deadReason);
    if (this.deps.feed.failure) throw this.deps.feed.failure;
    const watch = this.watchTurn(io);
    const onAbort = () => {
      void client.session.abort({ sessionID: this.sessionId, directory }).catch(() => undefined);
      // An aborted session goes idle at once; if it does not, stop waiting after a grace period.
      setTimeout(() => watch.finish(null), 5_000).unref();
    };
    io.signal.addEventListener('abort', onAbort, { once: true });
    let turnOpen = true;
    try {
      const current = await client.session.get({ sessionID: this.sessionId, directory });
      if (current.data) {
        io.emit({
          type: RESPONSE_FRAME,
          route: 'GET /session/:id',
          body: current.data as unknown as JsonObject,
        });
      }
      void this.deps.providers.then((body) => {
        if (!body || !turnOpen || this.providersRecorded) return;
        this.providersRecorded = true;
        io.emit({ type: RESPONSE_FRAME, route: 'GET /config/providers', body });
      });
      const model = parseModelRef(turn.model);
      const prompted = await client.session.promptAsync({
        sessionID: this.sessionId,
        directory,
        parts: [{ type: 'text', text: turn.prompt }],
        ...(model ? { model } : {}),
        ...(turn.mode ? { agent: turn.mode } : {}),
      });
      if (prompted.error !== undefined && prompted.response?.status !== 204) {
        return { outcome: 'failed', error: `OpenCode refused the prompt: ${JSON.stringify(prompted.error)}` };
      }
      watch.accepted();
      const died = await Promise.race([watch.finished, this.deps.died]);
      // Thrown, not returned: the harness then drops this session and the next run reopens (and restarts) it.
      if (died) throw new Error(died);
      await new Promise((resolve) => setTimeout(resolve, this.deps.settleMs));
      await Promise.allSettled(watch.answering);
    } finally {
      turnOpen = false;
      watch.stop();
      io.signal.removeEventListener('abort', onAbort);
    }
    if (io.signal.aborted) return { outcome: 'cancelled' };
    if (watch.failure()) return { outcome: 'failed', error: watch.failure() ?? '' };
    return { outcome: 'completed' };
  }

  /**
   * Follows the turn on the event feed: records its frames, answers permissions and questions, and settles
   * `finished` with null at its end or with a reason the session must be dropped (the feed failed).
   *
   * The end of the turn is `session.status idle` / `session.idle` after `busy`. An idle with no busy before it
   * (a server that skips busy, or a stale idle of the previous turn) ends the turn only if no busy follows
   * within `idleGraceMs` of the prompt being accepted: never a turn that waits forever, never one cut short
   * by a stale idle while the real one runs.
   */
  private watchTurn(io: TurnIO) {
    let seenBusy = false;
    let lonelyIdle = false;
    let accepted = false;
    let grace: NodeJS.Timeout | undefined;
    let failure: string | null = null;
    let finish: (reason: string | null) => void = () => {};
    const finished = new Promise<string | null>((resolve) => {
      finish = resolve;
    });
    const answering: Promise<void>[] = [];
    const endWithoutBusy = () => {
      if (!accepted || seenBusy || !lonelyIdle) return;
      clearTimeout(grace);
      grace = setTimeout(() => {
        if (!seenBusy) finish(null);
      }, this.deps.idleGraceMs ?? 2_000);
      grace.unref();
    };
    const onIdle = () => {
      if (seenBusy) finish(null);
      else {
        lonelyIdle = true;
        endWithoutBusy();
      }
    };
    const off = this.deps.feed.on((event, raw) => {
      if (!this.isOurs(event)) return;
      io.emit(event, raw);
      const type = asString(event.type);
      const props = asObject(event.properties) ?? {};
      const isRoot = asString(props.sessionID) === this.sessionId;
      if (type === 'permission.asked') answering.push(this.answerPermission(props, io));
      else if (type === 'question.asked') answering.push(this.answerQuestion(props, io));
      else if (isRoot && type === 'session.status') {
        const status = asString(asObject(props.status)?.type);
        if (status === 'busy') {
          seenBusy = true;
          clearTimeout(grace);
        }
        if (status === 'idle') onIdle();
      } else if (isRoot && type === 'session.idle') onIdle();
      else if (isRoot && type === 'session.error') {
        const error = asObject(props.error);
        const name = asString(error?.name);
        if (name !== 'MessageAbortedError') {
          failure = asString(asObject(error?.data)?.message) ?? name ?? 'OpenCode reported an error';
        }
      }
    });
    // An event too large to read: its warning goes into this turn (it cannot say which session it was about).
    const offSkipped = this.deps.feed.onSkipped((frame) => io.emit(frame as unknown as JsonObject));
    const offFailure = this.deps.feed.onFailure((error) => finish(error.message));
    // Events of a reconnect's gap are lost: if the session went idle meanwhile, that was the turn's end.
    const offReconnect = this.deps.feed.onReconnect(() => {
      if (accepted && seenBusy) void this.idleNow().then((idle) => idle && finish(null));
    });
    return {
      finished,
      answering,
      finish: (reason: string | null) => finish(reason),
      failure: () => failure,
      accepted: () => {
        accepted = true;
        endWithoutBusy();
      },
      stop: () => {
        clearTimeout(grace);
        off();
        offSkipped();
        offFailure();
        offReconnect();
      },
    };
  }

  /** Whether OpenCode reports the session idle now (false when it cannot tell). */
  private async idleNow(): Promise<boolean> {
    try {
      const { data } = await this.deps.client.session.status({ directory: this.deps.directory });
      if (!data || typeof data !== 'object') return false;
      const status = (data as Record<string, { type?: string } | undefined>)[this.sessionId];
      return status === undefined || status.type === 'idle';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.deps.feed.close();
    await this.deps.onClose();
  }

  /** Frames of our session tree, and frames that name no session (file.edited, the watcher, startup). */
  private isOurs(event: JsonObject): boolean {
    const props = asObject(event.properties) ?? {};
    const info = asObject(props.info);
    if (asString(event.type) === 'session.created' && info) {
      const id = asString(info.id);
      const parent = asString(info.parentID);
      if (id && parent && this.tree.has(parent)) this.tree.add(id);
      return id !== undefined && this.tree.has(id);
    }
    const sessionId =
      asString(props.sessionID) ?? asString(info?.sessionID) ?? asString(asObject(props.part)?.sessionID);
    return sessionId === undefined || this.tree.has(sessionId);
  }

  private async answerPermission(props: JsonObject, io: TurnIO): Promise<void> {
    const requestID = asString(props.id);
    if (!requestID) return;
    const answer = await io.awaitApproval(requestID);
    const optionId = answer.outcome === 'selected' ? answer.optionId : undefined;
    const reply = optionId && REPLIES.has(optionId) ? (optionId as 'once' | 'always' | 'reject') : 'reject';
    await this.deps.client.permission
      .reply({ requestID, directory: this.deps.directory, reply })
      .catch(() => undefined);
  }

  private async answerQuestion(props: JsonObject, io: TurnIO): Promise<void> {
    const requestID = asString(props.id);
    const questions = asArray(props.questions);
    if (!requestID || !questions) return;
    const answers = await Promise.all(
      questionIds(requestID, questions.length).map((id) => io.awaitQuestion(id)),
    );
    const { client, directory } = this.deps;
    if (answers.some((a) => a.outcome !== 'answered')) {
      await client.question.reject({ requestID, directory }).catch(() => undefined);
      return;
    }
    const replies = answers.map((a) => [...(a.choiceIds ?? []), ...(a.text ? [a.text] : [])]);
    await client.question.reply({ requestID, directory, answers: replies }).catch(() => undefined);
  }
}
