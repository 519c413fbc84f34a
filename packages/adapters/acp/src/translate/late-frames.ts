import type { JsonObject, JsonValue } from '@agentlane/contract';
import { asObject, asString, isObject } from '@agentlane/engine-kit';
import { noteAgentRequest } from './agent-requests.js';
import { rpcIdOf } from './rpc-key.js';
import type { Step } from './step.js';

/**
 * Late frames: what the agent sends after it answered its `session/prompt` and before the client sends the
 * next one. An ACP agent streams a turn's updates before it answers the prompt (the answer is the only end of
 * a turn in ACP v1), so whatever comes after the answer belongs to no turn: a hostile or buggy agent's chunk
 * sent then would otherwise be stored between turns and read as the next run's output. The driver decides,
 * as each message is recorded in wire order (the SDK may hand the answer and the next updates over together,
 * but the recording sees their order), and marks such a message `late: true` in its stored frame
 * (driver/turn-window.ts). The mark is on the frame itself, not in a frame before it: a burst of late
 * messages can straddle the end of a run (some land before the lane hands the session back, the rest go to
 * the next run), and each frame must carry its verdict to whichever run it lands in.
 */
export const LATE_FIELD = 'late';

/** Updates that only set the session's state; they are applied whether replayed, live or late. */
const SETTINGS = new Set([
  'available_commands_update',
  'current_mode_update',
  'config_option_update',
  'session_info_update',
]);

/** A session/update that only sets the session's state (commands, mode, config options, title). */
export function isSettingsUpdate(params: JsonObject): boolean {
  const kind = asString(asObject(params.update)?.sessionUpdate);
  return kind !== undefined && SETTINGS.has(kind);
}

/**
 * Whether an agent message recorded after the turn's answer is late: what would become a turn's content, a
 * session/update (text, reasoning, tools, plans, usage) or a permission request (an approval). Not a settings
 * update: those describe the session, not a turn (agents send a command catalog whenever it changes, a mode
 * change may answer the next run's session/set_mode before its prompt). Not another method either: agentlane
 * offers none, so such a request or notification only ever becomes its own warning, and agents send some
 * legitimately after a turn (Qwen Code 0.24.4 suggests the next prompt with `qwen/notify/session/prompt-
 * suggestion` right after its answer). Responses answer the client's own requests and are never late.
 */
export function canBeLate(msg: JsonObject): boolean {
  if (msg.method === 'session/request_permission') return true;
  return msg.method === 'session/update' && !isSettingsUpdate(asObject(msg.params) ?? {});
}

/** Whether a stored frame carries the driver's late mark. */
export function isLateFrame(frame: JsonValue): boolean {
  return isObject(frame) && frame[LATE_FIELD] === true;
}

/**
 * A message the driver marked late: not translated (no message, tool or approval for any run). One warning
 * per burst, until the next prompt request; a request stays in the books, so the driver's answer to it
 * (cancelled, or an error) answers it and nothing else.
 */
export function onLateMessage(step: Step, msg: JsonObject): void {
  const method = asString(msg.method) ?? 'unknown';
  const id = rpcIdOf(msg.id);
  if (id !== undefined) noteAgentRequest(step, id, method);
  if (step.state.lateBurst) return;
  step.state.lateBurst = true;
  const update = asString(asObject(asObject(msg.params)?.update)?.sessionUpdate);
  step.warn(
    'acp.late_frames',
    'the agent sent output after it had answered its prompt; it belongs to no turn and is not translated (nor what follows until the next prompt)',
    { method, ...(update ? { sessionUpdate: update } : {}), ...(id !== undefined ? { id } : {}) },
  );
}
