import type { CapabilityFlag, JsonObject, JsonValue } from '@agentlane/contract';
import {
  asObject,
  asString,
  compact,
  dispatchHarnessFrame,
  finishStep,
  frameKey,
  isHarnessFrame,
  isObject,
  type NativeFrameRecord,
  StepBuilder,
  type TranslationContext,
  type TranslationStep,
  type Translator,
  translateGuarded,
  withAudit,
} from '@agentlane/engine-kit';
import { noteCancelledByDriver, noteRefusedByDriver } from './agent-requests.js';
import { onApprovalIdFrame } from './approvals.js';
import { fromAgent } from './from-agent.js';
import { fromClient } from './from-client.js';
import { acpHarnessHandlers } from './harness.js';
import { isLateFrame, onLateMessage } from './late-frames.js';
import { noteStrayResponse } from './responses.js';
import { type AcpTranslatorConfig, flushPendingSession } from './session.js';
import { type AcpState, cloneState, initialAcpState } from './state.js';
import type { Step } from './step.js';
import { closeText } from './text.js';
import { closeOpenTools } from './tools.js';
import { completeTurn } from './turn.js';
import { onCommands } from './updates.js';

/** The durable provider event the driver stores for a command catalog (replayed as commands.updated). */
export const ACP_COMMANDS_EVENT = 'acp.commands';

/**
 * The durable provider event the driver stores for what came over the wire but is no usable message: a line
 * that is not a JSON object (`reason` parse_error / not_an_object, `line` its first KB), or a response to
 * a request the client never sent (stray_response). The driver's decisions on the agent's requests are
 * stored the same way just before the request: refused as sent under a pending id (duplicate_request_id),
 * or answered cancelled unasked as one permission request too many (too_many_pending_permissions,
 * driver/request-ledger.ts). Each becomes a harness.warning.
 */
export const ACP_WIRE_WARNING_EVENT = 'acp.wire_warning';

const WIRE_WARNINGS: Record<string, string> = {
  parse_error: 'the agent sent a line that is not JSON',
  not_an_object: 'the agent sent a JSON line that is not an object',
  stray_response: 'the agent answered a request the client never sent, or one already answered',
  duplicate_request_id: 'the agent sent a request under the id of one still pending; agentlane refused it',
  too_many_pending_permissions:
    'the agent has more permission requests pending than agentlane keeps open; this one was answered cancelled without asking',
};

/**
 * The driver's frame `{event, id, approvalId}` just before a permission request whose JSON-RPC id an earlier
 * request of the session had: the approval id it gave that request (driver/request-ledger.ts).
 */
export const ACP_APPROVAL_ID_EVENT = 'acp.approval_id';

/** The `transport` of ACP engines' audit rows: JSON-RPC over the agent's stdio. */
export const ACP_AUDIT_TRANSPORT = 'acp';

export interface AcpTranslatorOptions {
  provider?: string;
  /** Observed flags for traces without a session.bound frame (see capabilities.ts). */
  observed?: Partial<Record<CapabilityFlag, boolean>>;
}

type Direction = 'agent->client' | 'client->agent';
type Wire = { dir: Direction; msg: JsonObject };

/** A stored ACP frame: `{dir, msg}` as the driver records it, or a bare JSON-RPC message from the agent. */
function readWire(frame: JsonValue): Wire | null {
  if (!isObject(frame)) return null;
  const msg = asObject(frame.msg);
  if (msg && (frame.dir === 'agent->client' || frame.dir === 'client->agent')) return { dir: frame.dir, msg };
  if (frame.jsonrpc === '2.0') return { dir: 'agent->client', msg: frame };
  return null;
}

export function createAcpTranslator(options: AcpTranslatorOptions = {}): Translator<AcpState> {
  const config: AcpTranslatorConfig = {
    provider: options.provider ?? 'acp',
    observed: options.observed ?? {},
  };
  const harness = acpHarnessHandlers(config);
  const audit = { provider: config.provider, transport: ACP_AUDIT_TRANSPORT };

  /** One stored frame: a harness frame, the driver's command catalog, or an ACP message either way. */
  function translateFrame(step: Step, frame: JsonValue, wire: Wire | null): void {
    if (isHarnessFrame(frame)) {
      step.state.harnessSeen = true;
      dispatchHarnessFrame(step, frame, harness);
    } else if (isObject(frame) && frame.event === ACP_COMMANDS_EVENT) {
      onCommands(step, frame.availableCommands);
    } else if (isObject(frame) && frame.event === ACP_APPROVAL_ID_EVENT) {
      onApprovalIdFrame(step, frame.id, frame.approvalId);
    } else if (isObject(frame) && frame.event === ACP_WIRE_WARNING_EVENT) {
      const reason = asString(frame.reason) ?? 'unknown';
      if (reason === 'stray_response') noteStrayResponse(step, frame.id);
      if (reason === 'duplicate_request_id') noteRefusedByDriver(step, frame.id);
      if (reason === 'too_many_pending_permissions') noteCancelledByDriver(step, frame.id);
      const { event: _event, ...detail } = frame;
      step.warn(`acp.${reason}`, WIRE_WARNINGS[reason] ?? 'the agent sent something unusable', detail);
    } else if (wire?.dir === 'agent->client' && isLateFrame(frame) && wire.msg.method !== undefined) {
      onLateMessage(step, wire.msg);
    } else if (wire?.dir === 'agent->client') fromAgent(step, wire.msg, config);
    else if (wire?.dir === 'client->agent') fromClient(step, wire.msg, config);
    else step.warn('acp.bad_frame', 'a frame that is neither an ACP message nor a harness frame', frame);
  }

  return {
    provider: config.provider,
    initialState: () => initialAcpState(),
    translate(
      record: NativeFrameRecord,
      prior: AcpState,
      ctx: TranslationContext,
    ): TranslationStep<AcpState> {
      // A translator never throws: a frame it cannot read becomes a warning (the step dropped whole).
      return translateGuarded(prior, frameKey('f', record.nativeSeq), 'acp.translate_failed', () => {
        const wire = readWire(record.frame);
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
        translateFrame(step, record.frame, wire);
        return withAudit(step, record.receivedAt, ctx, audit);
      });
    },
    finish(prior: AcpState, ctx: TranslationContext): TranslationStep<AcpState> {
      const state = cloneState(prior);
      const step: Step = finishStep(state, ctx, state.turnStartedAt ?? new Date(0).toISOString(), {});
      finishRun(step, config);
      return withAudit(step, null, ctx, audit);
    },
  };
}

/** The trace ended: a turn still open had no prompt response; text and tools still open are closed. */
function finishRun(step: Step, config: AcpTranslatorConfig): void {
  const state = step.state;
  flushPendingSession(step, config);
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
}

/** The default ACP translator. */
export const acpTranslator = createAcpTranslator();
