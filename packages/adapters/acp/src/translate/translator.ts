import type { CapabilityFlag, JsonObject, JsonValue, SessionOrigin } from '@agentlane/contract';
import {
  asObject,
  asString,
  compact,
  dispatchHarnessFrame,
  engineErrorPayload,
  engineExitedError,
  finishStep,
  frameKey,
  type HarnessHandlers,
  isHarnessFrame,
  isObject,
  type NativeFrameRecord,
  rpcId,
  StepBuilder,
  type TranslationContext,
  type TranslationStep,
  type Translator,
  translateGuarded,
  turnStartedPayload,
  withAudit,
} from '@agentlane/engine-kit';
import { approvalIdFor, onPermissionRequest, resolveApproval } from './approvals.js';
import { endReplay, lateUpdateIsReplay, startReplay } from './replay.js';
import {
  emitMetadata,
  emitMode,
  emitSessionStarted,
  onInitializeResult,
  onSessionResult,
} from './session.js';
import { type AcpState, cloneState, initialAcpState } from './state.js';
import type { Step } from './step.js';
import { closeText } from './text.js';
import { closeOpenTools } from './tools.js';
import { completeTurn, onPromptError, onPromptResult, openTurn, promptText } from './turn.js';
import { onCommands, onReplayedUpdate, onSessionUpdate } from './updates.js';

/** The durable provider event the driver stores for a command catalog (replayed as commands.updated). */
export const ACP_COMMANDS_EVENT = 'acp.commands';

/** The `transport` of ACP engines' audit rows: JSON-RPC over the agent's stdio. */
export const ACP_AUDIT_TRANSPORT = 'acp';

export interface AcpTranslatorOptions {
  provider?: string;
  /** Observed flags for traces without a session.bound frame (see capabilities.ts). */
  observed?: Partial<Record<CapabilityFlag, boolean>>;
}

type Direction = 'agent->client' | 'client->agent';

/** A stored ACP frame: `{dir, msg}` as the driver records it, or a bare JSON-RPC message from the agent. */
function readWire(frame: JsonValue): { dir: Direction; msg: JsonObject } | null {
  if (!isObject(frame)) return null;
  const msg = asObject(frame.msg);
  if (msg && (frame.dir === 'agent->client' || frame.dir === 'client->agent')) return { dir: frame.dir, msg };
  if (frame.jsonrpc === '2.0') return { dir: 'agent->client', msg: frame };
  return null;
}

const ORIGIN_OF: Record<string, SessionOrigin> = {
  'session/new': 'new',
  'session/load': 'load',
  'session/resume': 'resume',
  'session/fork': 'fork',
};

export function createAcpTranslator(options: AcpTranslatorOptions = {}): Translator<AcpState> {
  const provider = options.provider ?? 'acp';
  const observed = options.observed ?? {};

  const flushPendingSession = (step: Step) => {
    if (step.state.pendingSession) emitSessionStarted(step, provider, null, observed);
  };

  const harness: HarnessHandlers<Step> = {
    'session.bound': (step, frame) =>
      emitSessionStarted(
        step,
        provider,
        {
          origin: frame.origin,
          generation: frame.generation,
          capabilities: frame.capabilities,
          ...(frame.nativeSessionId ? { nativeSessionId: frame.nativeSessionId } : {}),
          ...(frame.agent ? { agent: frame.agent } : {}),
          ...(frame.cwd ? { cwd: frame.cwd } : {}),
        },
        observed,
      ),
    'turn.started': (step, frame) => openTurn(step, turnStartedPayload(frame)),
    'approval.answered': (step, frame) =>
      resolveApproval(
        step,
        frame.approvalId,
        compact({ outcome: frame.outcome, optionId: frame.optionId, answeredBy: frame.answeredBy }),
      ),
    // agentlane offers no elicitation to ACP agents yet, so no question was asked: nothing to resolve.
    'question.answered': () => {},
    'turn.cancel_requested': (step) => {
      step.state.cancelRequested = true;
    },
    'engine.exited': (step, frame) => {
      closeText(step);
      step.state.fatalReported = true;
      step.emitHere({ kind: 'harness.error', payload: engineExitedError(frame, 'the engine process') });
    },
    'engine.error': (step, frame) => {
      // The lane reports the failure of a turn whose engine died; engine.exited already said it.
      if (frame.fatal && step.state.fatalReported) return;
      if (frame.fatal) step.state.fatalReported = true;
      step.emitHere({ kind: 'harness.error', payload: engineErrorPayload(frame) });
    },
    'turn.ended': (step, frame) => {
      flushPendingSession(step);
      if (frame.outcome === 'cancelled') completeTurn(step, 'cancelled');
      else if (frame.outcome === 'failed') completeTurn(step, 'error', frame.error);
      else completeTurn(step, 'end_turn');
    },
  };

  function fromAgent(step: Step, msg: JsonObject): void {
    const state = step.state;
    const method = asString(msg.method);
    const id = rpcId(msg.id);
    const params = asObject(msg.params) ?? {};
    if (method !== undefined) {
      // In a live run a notification may slip between the session response and session.bound; only a
      // trace without harness frames starts the session from the response here.
      if (id !== undefined || !state.harnessSeen) flushPendingSession(step);
      // A trace with only the agent's side has no prompt request: the first update opens the turn. A replayed
      // update does not: it belongs to earlier runs, and the turn.started that follows carries the prompt.
      if (state.turn === 'none' && !state.replaying) openTurn(step, {});
      if (id !== undefined) {
        // A request from the agent (a permission) is live output: a late replay is over.
        if (!state.replaying) state.replayLate = false;
        state.agentRequests[id] = method;
        if (method === 'session/request_permission') {
          onPermissionRequest(step, id, params);
          return;
        }
        // Other client methods (fs/*, terminal/*) are not offered by agentlane; the driver refuses them.
        step.warn('acp.unhandled_request', `the agent asked for ${method}, which agentlane does not offer`);
        return;
      }
      if (method === 'session/update') {
        if (state.replaying || lateUpdateIsReplay(step, params)) onReplayedUpdate(step, params);
        else onSessionUpdate(step, params);
        return;
      }
      step.warn('acp.unhandled_notification', `an ACP notification agentlane does not translate: ${method}`);
      return;
    }
    if (id === undefined) {
      step.warn('acp.bad_frame', 'a JSON-RPC message without method or id', msg);
      return;
    }
    const request = state.clientRequests[id];
    delete state.clientRequests[id];
    const error = asObject(msg.error);
    const result = asObject(msg.result);
    const requestMethod = request?.method ?? inferMethod(result);
    // A failed load replays nothing; a successful one may go on replaying after its response (replay.ts).
    if (requestMethod === 'session/load' && error) endReplay(step, false);
    if (error) {
      if (requestMethod === 'session/prompt') {
        onPromptError(step, error);
        return;
      }
      step.emitHere({
        kind: 'harness.error',
        payload: compact({
          code: 'acp.request_failed',
          message: `${requestMethod ?? 'a request'} failed: ${asString(error.message) ?? 'unknown error'}`,
          fatal: false,
          detail: error,
        }),
      });
      return;
    }
    if (!result) return;
    switch (requestMethod) {
      case 'initialize':
        onInitializeResult(step, result);
        return;
      case 'session/new':
      case 'session/load':
      case 'session/resume':
      case 'session/fork': {
        const sessionId = asString(result.sessionId) ?? asString(request?.params.sessionId) ?? null;
        onSessionResult(step, ORIGIN_OF[requestMethod] ?? 'new', result, sessionId);
        return;
      }
      case 'session/prompt':
        flushPendingSession(step);
        onPromptResult(step, result);
        return;
      case 'session/set_mode': {
        const modeId = asString(request?.params.modeId);
        if (modeId) {
          state.currentModeId = modeId;
          emitMode(step);
        }
        return;
      }
      case 'session/set_config_option': {
        const options = Array.isArray(result.configOptions) ? result.configOptions.filter(isObject) : [];
        if (options.length > 0) {
          const before = state.configOptions.find((o) => o.category === 'mode')?.currentValue;
          state.configOptions = options;
          emitMetadata(step);
          const mode = options.find((o) => o.category === 'mode');
          if (mode && mode.currentValue !== before) {
            state.currentModeId = asString(mode.currentValue) ?? state.currentModeId;
            emitMode(step);
          }
        }
        return;
      }
      default:
        return;
    }
  }

  function fromClient(step: Step, msg: JsonObject): void {
    const state = step.state;
    const method = asString(msg.method);
    const id = rpcId(msg.id);
    if (method !== undefined) {
      if (id !== undefined) state.clientRequests[id] = { method, params: asObject(msg.params) ?? {} };
      if (method === 'session/prompt') {
        endReplay(step, true);
        flushPendingSession(step);
        // A trace recorded without the harness has no turn.started frame: the prompt request opens the turn.
        if (state.turn === 'none') openTurn(step, { prompt: promptText(asObject(msg.params) ?? {}) });
      }
      if (method === 'session/cancel') state.cancelRequested = true;
      if (method === 'session/load') startReplay(step);
      return;
    }
    // Our answer to an agent request.
    if (id === undefined) return;
    const requestMethod = state.agentRequests[id];
    delete state.agentRequests[id];
    if (requestMethod !== 'session/request_permission') return;
    const outcome = asObject(asObject(msg.result)?.outcome);
    const selected = outcome?.outcome === 'selected';
    resolveApproval(
      step,
      approvalIdFor(id),
      compact({
        outcome: selected ? 'selected' : 'cancelled',
        optionId: selected ? asString(outcome?.optionId) : undefined,
      }),
    );
  }

  const audit = { provider, transport: ACP_AUDIT_TRANSPORT };

  return {
    provider,
    initialState: () => initialAcpState(),
    translate(
      record: NativeFrameRecord,
      prior: AcpState,
      ctx: TranslationContext,
    ): TranslationStep<AcpState> {
      // A translator never throws: a frame it cannot read becomes a warning (the step dropped whole).
      return translateGuarded(prior, frameKey('f', record.nativeSeq), 'acp.translate_failed', () => {
        const frame = record.frame;
        const wire = readWire(frame);
        const sessionId = wire ? asString(asObject(wire.msg.params)?.sessionId) : undefined;
        const step: Step = new StepBuilder({
          state: cloneState(prior),
          frameKey: frameKey('f', record.nativeSeq),
          receivedAt: record.receivedAt,
          runId: ctx.runId,
          identity: compact({
            nativeSessionId: sessionId ?? prior.nativeSessionId ?? ctx.nativeSessionId ?? undefined,
          }),
        });
        if (isHarnessFrame(frame)) {
          step.state.harnessSeen = true;
          dispatchHarnessFrame(step, frame, harness);
        } else if (isObject(frame) && frame.event === ACP_COMMANDS_EVENT) {
          onCommands(step, frame.availableCommands);
        } else if (wire?.dir === 'agent->client') fromAgent(step, wire.msg);
        else if (wire?.dir === 'client->agent') fromClient(step, wire.msg);
        else step.warn('acp.bad_frame', 'a frame that is neither an ACP message nor a harness frame', frame);
        return withAudit(step, record.receivedAt, ctx, audit);
      });
    },
    finish(prior: AcpState, ctx: TranslationContext): TranslationStep<AcpState> {
      const state = cloneState(prior);
      const step: Step = finishStep(state, ctx, state.turnStartedAt ?? new Date(0).toISOString(), {});
      flushPendingSession(step);
      if (state.turn === 'open') {
        completeTurn(
          step,
          state.fatalReported ? 'error' : state.cancelRequested ? 'cancelled' : 'error',
          'no prompt response',
        );
      } else {
        closeText(step);
        closeOpenTools(step, 'failed');
      }
      return withAudit(step, null, ctx, audit);
    },
  };
}

/** For traces that hold only the agent's side: recognise a response by its shape. */
function inferMethod(result: JsonObject | undefined): string | undefined {
  if (!result) return undefined;
  if ('protocolVersion' in result && ('agentCapabilities' in result || 'authMethods' in result))
    return 'initialize';
  if (typeof result.sessionId === 'string') return 'session/new';
  if ('stopReason' in result) return 'session/prompt';
  return undefined;
}

/** The default ACP translator. */
export const acpTranslator = createAcpTranslator();
