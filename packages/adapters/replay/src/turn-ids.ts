import type { JsonObject, JsonValue } from '@agentlane/contract';

/**
 * The native ids a turn mints: messages, parts, tool calls, permission and question requests. A real engine
 * mints new ones every turn; a replay that played the recorded ones again would make clients merge its turns
 * (AG-UI keys messages by id, ACP clients tool calls by toolCallId). Sessions keep theirs, as a real
 * engine's session outlives its turns.
 */
const TURN_ID_KEYS = new Set([
  'toolCallId',
  'messageId',
  'callID',
  'messageID',
  'partID',
  'requestID',
  'permissionID',
]);
/** OpenCode's own `id`s of what a turn makes (a message, a part, a permission or question request). */
const TURN_ID_PREFIX = /^(msg|prt|per|que)_/;
/** A collected id is rewritten only under a key naming an id, never in text that happens to equal it. */
const ID_KEY = /id$/i;
const PERMISSION = 'session/request_permission';

export interface TurnIds {
  /** Ids found under the keys above, rewritten wherever an id key holds them. */
  values: Set<string>;
  /** JSON-RPC ids of the agent's permission requests: their approval ids, and their answers' ids. */
  permissionRpcIds: Set<string | number>;
}

/** The turn-scoped ids of a recording, collected once. */
export function collectTurnIds(frames: readonly JsonValue[]): TurnIds {
  const ids: TurnIds = { values: new Set(), permissionRpcIds: new Set() };
  const walk = (value: JsonValue): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isObject(value))
      for (const [key, v] of Object.entries(value)) {
        if (typeof v === 'string' && (TURN_ID_KEYS.has(key) || (key === 'id' && TURN_ID_PREFIX.test(v))))
          ids.values.add(v);
        walk(v);
      }
  };
  for (const frame of frames) {
    walk(frame);
    const rpc = rpcOf(frame);
    if (rpc?.msg.method === PERMISSION && isRpcId(rpc.msg.id)) ids.permissionRpcIds.add(rpc.msg.id);
  }
  return ids;
}

/**
 * The frames with every turn-scoped id suffixed, the same id the same way throughout, so what correlates
 * within the turn (a tool call's start, updates and result, a request and its answer) still does.
 */
export function withTurnIds(frames: readonly JsonValue[], ids: TurnIds, suffix: string): JsonValue[] {
  const rewrite = (value: JsonValue, key: string): JsonValue => {
    if (typeof value === 'string') return ID_KEY.test(key) && ids.values.has(value) ? value + suffix : value;
    if (Array.isArray(value)) return value.map((v) => rewrite(v, key));
    if (!isObject(value)) return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(v, k)]));
  };
  return frames.map((frame) => withPermissionRpcId(rewrite(frame, ''), ids, suffix));
}

/**
 * A permission request's JSON-RPC id is its approval id (the ACP translator's `perm-<id>`), so it is suffixed
 * too, in the request and in the client's answer; the id spaces of the other requests are left alone.
 */
function withPermissionRpcId(frame: JsonValue, ids: TurnIds, suffix: string): JsonValue {
  const rpc = rpcOf(frame);
  if (!rpc || !isRpcId(rpc.msg.id) || !ids.permissionRpcIds.has(rpc.msg.id)) return frame;
  const asked = rpc.dir === 'agent->client' && rpc.msg.method === PERMISSION;
  const answered = rpc.dir === 'client->agent' && rpc.msg.method === undefined;
  if (!asked && !answered) return frame;
  const msg = { ...rpc.msg, id: `${rpc.msg.id}${suffix}` };
  return rpc.bare ? msg : { ...(frame as JsonObject), msg };
}

/** An ACP frame as the driver records it (`{dir, msg}`), or a bare JSON-RPC message from the agent. */
function rpcOf(frame: JsonValue): { dir: string; msg: JsonObject; bare: boolean } | undefined {
  if (!isObject(frame)) return undefined;
  if (isObject(frame.msg) && typeof frame.dir === 'string')
    return { dir: frame.dir, msg: frame.msg, bare: false };
  if (frame.jsonrpc === '2.0') return { dir: 'agent->client', msg: frame, bare: true };
  return undefined;
}

const isObject = (v: JsonValue | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isRpcId = (v: JsonValue | undefined): v is string | number =>
  typeof v === 'string' || typeof v === 'number';
