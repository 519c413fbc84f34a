import type { JsonObject } from '@agentlane/contract';
import {
  asObject,
  asString,
  compact,
  dispatchHarnessFrame,
  finishStep,
  frameKey,
  isHarnessFrame,
  type NativeFrameRecord,
  StepBuilder,
  type TranslationContext,
  type TranslationStep,
  type Translator,
  translateGuarded,
  withAudit,
} from '@agentlane/engine-kit';
import { onFileEdited, onSessionDiff, onWatcherUpdated } from './files.js';
import { harnessHandlers } from './harness-frames.js';
import {
  cancelOpenInteractions,
  onPermissionAsked,
  onPermissionReplied,
  onQuestionAsked,
  onQuestionReplied,
  onTodoUpdated,
} from './interactions.js';
import { onMessageUpdated, onPartUpdated } from './messages.js';
import { isOurSession } from './session-tree.js';
import {
  completeTurn,
  onProviders,
  onSessionCreated,
  onSessionError,
  onSessionStatus,
  onSessionUpdated,
} from './sessions.js';
import { cloneState, initialOpenCodeState, type OpenCodeState } from './state.js';
import type { Step } from './step.js';
import { closeOpenParts, onPartDelta } from './text-parts.js';
import { closeOpenTools } from './tool-parts.js';

/** Events that carry nothing a run shows: startup noise, catalog refreshes, LSP and project bookkeeping. */
const IGNORED = new Set([
  'server.connected',
  'server.heartbeat',
  'server.instance.disposed',
  'plugin.added',
  'catalog.updated',
  'reference.updated',
  'integration.updated',
  'integration.connection.updated',
  'models-dev.refreshed',
  'installation.updated',
  'installation.update-available',
  'lsp.updated',
  'lsp.client.diagnostics',
  'project.updated',
  'project.directories.updated',
  'vcs.branch.updated',
  'message.removed',
  'message.part.removed',
  'session.deleted',
  'session.compacted',
  'command.executed',
  'mcp.tools.changed',
  'pty.created',
  'pty.updated',
  'pty.exited',
  'pty.deleted',
  'tui.prompt.append',
  'tui.command.execute',
  'tui.session.select',
  'workspace.ready',
]);

/** The pure OpenCode translator: `/event` SSE objects (plus harness frames) → canonical events. */
export const openCodeTranslator: Translator<OpenCodeState> = {
  provider: 'opencode',
  initialState(ctx: TranslationContext): OpenCodeState {
    return initialOpenCodeState(ctx.nativeSessionId);
  },
  translate(
    record: NativeFrameRecord,
    previous: OpenCodeState,
    ctx: TranslationContext,
  ): TranslationStep<OpenCodeState> {
    // Never throw on a bad frame: whatever was malformed becomes a warning, the state stays consistent.
    const key = frameKey('n', record.nativeSeq);
    return translateGuarded(previous, key, 'opencode.untranslatable_frame', () => {
      const frame = asObject(record.frame);
      const out: Step = new StepBuilder({
        state: cloneState(previous),
        frameKey: key,
        receivedAt: record.receivedAt,
        runId: ctx.runId,
        identity: compact({
          nativeEventId: asString(frame?.id),
          nativeSessionId: previous.rootSessionId ?? undefined,
        }),
      });
      if (isHarnessFrame(record.frame)) dispatchHarnessFrame(out, record.frame, harnessHandlers);
      else if (!frame) out.warn('opencode.malformed_frame', 'a native frame that is not a JSON object');
      else onEvent(out, frame);
      return withAudit(out, record.receivedAt, ctx, AUDIT);
    });
  },
  finish(previous: OpenCodeState, ctx: TranslationContext): TranslationStep<OpenCodeState> {
    const state = cloneState(previous);
    const identity = compact({ nativeSessionId: state.rootSessionId ?? undefined });
    const out: Step = finishStep(state, ctx, '', identity);
    closeOpenTools(out);
    closeOpenParts(out);
    cancelOpenInteractions(out);
    if (state.turn === 'open') completeTurn(out, state.cancelRequested || state.aborted ? 'cancelled' : null);
    return withAudit(out, null, ctx, AUDIT);
  },
};

/** The `transport` of OpenCode's audit rows: its HTTP API and `/event` SSE stream. */
export const OPENCODE_AUDIT_TRANSPORT = 'opencode-http';

const AUDIT = { provider: 'opencode', transport: OPENCODE_AUDIT_TRANSPORT };

/**
 * Responses of HTTP calls the driver made (GET /config/providers, GET /session/:id), recorded as frames so
 * re-translation sees what the run saw. They are not SSE events: `type` marks them, `route` names the call.
 */
export const RESPONSE_FRAME = 'agentlane.http.response';

function onResponse(out: Step, frame: JsonObject): void {
  const route = asString(frame.route);
  const body = asObject(frame.body);
  if (!body) return;
  if (route === 'GET /config/providers') {
    onProviders(out, body);
  } else if (route === 'GET /session/:id') {
    const id = asString(body.id);
    if (id && !body.parentID) out.state.rootSessionId ??= id;
    if (id === out.state.rootSessionId) {
      out.state.directory = asString(body.directory) ?? out.state.directory;
      onSessionUpdated(out, { sessionID: id, info: body });
    }
  } else {
    out.warn('opencode.unknown_response', `a recorded response of an unknown route "${route}"`);
  }
}

function onEvent(out: Step, frame: JsonObject): void {
  const type = asString(frame.type);
  const props = asObject(frame.properties) ?? {};
  if (!type) {
    out.warn('opencode.malformed_frame', 'a native frame without a type');
    return;
  }
  if (IGNORED.has(type)) return;
  if (type === RESPONSE_FRAME) {
    onResponse(out, frame);
    return;
  }
  const sessionId =
    asString(props.sessionID) ??
    asString(asObject(props.info)?.sessionID) ??
    asString(asObject(props.part)?.sessionID);
  // session.created of a child names its parent; everything else must belong to our session tree.
  if (type !== 'session.created' && !isOurSession(out.state, sessionId)) return;
  if (sessionId && out.identity) out.identity.nativeSessionId = sessionId;
  switch (type) {
    case 'session.created':
      onSessionCreated(out, props);
      return;
    case 'session.updated':
      onSessionUpdated(out, props);
      return;
    case 'session.status':
      onSessionStatus(out, sessionId, asString(asObject(props.status)?.type) ?? '', props);
      return;
    case 'session.idle':
      onSessionStatus(out, sessionId, 'idle', props);
      return;
    case 'session.error':
      onSessionError(out, props);
      return;
    case 'session.diff':
      if (sessionId === out.state.rootSessionId) onSessionDiff(out, props);
      return;
    case 'message.updated':
      onMessageUpdated(out, props);
      return;
    case 'message.part.updated':
      onPartUpdated(out, props);
      return;
    case 'message.part.delta':
      onPartDelta(out, props);
      return;
    case 'permission.asked':
      onPermissionAsked(out, props);
      return;
    case 'permission.replied':
      onPermissionReplied(out, props);
      return;
    case 'question.asked':
      onQuestionAsked(out, props);
      return;
    case 'question.replied':
      onQuestionReplied(out, props, false);
      return;
    case 'question.rejected':
      onQuestionReplied(out, props, true);
      return;
    case 'todo.updated':
      onTodoUpdated(out, props);
      return;
    case 'file.edited':
      onFileEdited(out, props);
      return;
    case 'file.watcher.updated':
      onWatcherUpdated(out, props);
      return;
    case 'tui.toast.show': {
      const variant = asString(props.variant);
      if (variant === 'warning' || variant === 'error') {
        out.warn(`opencode.toast.${variant}`, asString(props.message) ?? 'OpenCode reported a problem');
      }
      return;
    }
    default:
      out.warn('opencode.unknown_event', `unknown OpenCode event "${type}"`, { type });
  }
}
