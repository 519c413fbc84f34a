import type { JsonObject, SessionOrigin } from '@agentlane/contract';
import { asObject, asString, compact, idDelete, idGet, idHas, idSet, isObject } from '@agentlane/engine-kit';
import { endReplay } from './replay.js';
import { rpcIdOf, rpcKey } from './rpc-key.js';
import {
  type AcpTranslatorConfig,
  emitMetadata,
  emitMode,
  flushPendingSession,
  onInitializeResult,
  onSessionResult,
} from './session.js';
import type { ClientRequest } from './state.js';
import type { Step } from './step.js';
import { onPromptError, onPromptResult } from './turn.js';

/** The agent's response to one of the client's requests. */
interface Response {
  /** The request it answers, when the trace holds it. */
  request: ClientRequest | undefined;
  result: JsonObject;
}

type ResultHandler = (step: Step, response: Response, config: AcpTranslatorConfig) => void;

function onSessionResponse(origin: SessionOrigin): ResultHandler {
  return (step, { request, result }) => {
    const sessionId = asString(result.sessionId) ?? asString(request?.params.sessionId) ?? null;
    onSessionResult(step, origin, result, sessionId);
  };
}

/** A mode switch the agent accepted: its result is empty, the request says which mode. */
function onSetModeResult(step: Step, { request }: Response): void {
  const modeId = asString(request?.params.modeId);
  if (!modeId) return;
  step.state.currentModeId = modeId;
  emitMode(step);
}

/** A config option set: the agent answers with every option; a changed `mode` option is a mode switch too. */
function onSetConfigOptionResult(step: Step, { result }: Response): void {
  const state = step.state;
  const options = Array.isArray(result.configOptions) ? result.configOptions.filter(isObject) : [];
  if (options.length === 0) return;
  const before = state.configOptions.find((o) => o.category === 'mode')?.currentValue;
  state.configOptions = options;
  emitMetadata(step);
  const mode = options.find((o) => o.category === 'mode');
  if (mode && mode.currentValue !== before) {
    state.currentModeId = asString(mode.currentValue) ?? state.currentModeId;
    emitMode(step);
  }
}

/** One handler per request method whose result means something; other results are dropped. */
const RESULT_HANDLERS = new Map<string, ResultHandler>([
  ['initialize', (step, { result }) => onInitializeResult(step, result)],
  ['session/new', onSessionResponse('new')],
  ['session/load', onSessionResponse('load')],
  ['session/resume', onSessionResponse('resume')],
  ['session/fork', onSessionResponse('fork')],
  [
    'session/prompt',
    (step, { result }, config) => {
      flushPendingSession(step, config);
      onPromptResult(step, result);
    },
  ],
  ['session/set_mode', onSetModeResult],
  ['session/set_config_option', onSetConfigOptionResult],
]);

/** A JSON-RPC response from the agent (`msg` has an id and no method). */
export function onAgentResponse(
  step: Step,
  id: string | number,
  msg: JsonObject,
  config: AcpTranslatorConfig,
): void {
  const state = step.state;
  const key = rpcKey(id);
  // The driver found it answers no request it sent (or one already answered) and said so just before it:
  // that warning is all it means. Neither a harness.error for an error nor a result read by its shape.
  if (idHas(state.strayResponses, key)) {
    state.strayResponses = idDelete(state.strayResponses, key);
    return;
  }
  const request = idGet(state.clientRequests, key);
  state.clientRequests = idDelete(state.clientRequests, key);
  const error = asObject(msg.error);
  const result = asObject(msg.result);
  const requestMethod = request?.method ?? inferMethod(result);
  // A failed load replays nothing; a successful one may go on replaying after its response (replay.ts).
  if (requestMethod === 'session/load' && error) endReplay(step, false);
  if (error) {
    onErrorResponse(step, requestMethod, error);
    return;
  }
  if (!result || requestMethod === undefined) return;
  RESULT_HANDLERS.get(requestMethod)?.(step, { request, result }, config);
}

function onErrorResponse(step: Step, requestMethod: string | undefined, error: JsonObject): void {
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

/**
 * The driver's stray_response warning, recorded just before the response it is about: the response that
 * follows with this id is skipped. (Traces recorded before the warning came first have it after.)
 */
export function noteStrayResponse(step: Step, id: unknown): void {
  const rpc = rpcIdOf(id);
  if (rpc !== undefined) step.state.strayResponses = idSet(step.state.strayResponses, rpcKey(rpc), true);
}
