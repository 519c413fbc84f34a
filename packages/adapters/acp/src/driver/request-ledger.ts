import type { JsonObject, JsonValue } from '@agentlane/contract';
import { asString } from '@agentlane/engine-kit';
import { approvalIdFor, nextApprovalId } from '../translate/approvals.js';
import { rpcKey } from '../translate/rpc-key.js';
import { ACP_APPROVAL_ID_EVENT, ACP_WIRE_WARNING_EVENT } from '../translate/translator.js';
import type { WireDirection } from './connection.js';
import { reachesPermissionHandler } from './permissions.js';

const PERMISSION = 'session/request_permission';

/**
 * The most permission requests of one session waiting for the user at once (the default of the engine's
 * `maxPendingPermissions`). Each pending request holds an approval the server keeps open, its handler and
 * its place in every book until it is answered; an agent that asks and never lets go (20,000 unanswered
 * requests made the server hold 880 MB) would otherwise grow them without end. Real agents ask one at a
 * time, a few at once with parallel subagents: 64 leaves them plenty.
 */
export const MAX_PENDING_PERMISSIONS = 64;

/**
 * What the handler of a permission request is to do: refuse it (a JSON-RPC error), answer it cancelled
 * without asking (too many pending, or late: turn-window.ts), or wait on this approval.
 */
export type Verdict = { kind: 'duplicate' } | { kind: 'cancel' } | { kind: 'approval'; approvalId: string };

/**
 * The agent's requests not answered yet, kept from the recorded frames in wire order for the life of the
 * session. The driver decides here, as each request is recorded, and records its decision in the frames
 * just before the request, so the translator (whose state lasts one run) follows it even across runs:
 *
 * - a request under an id still pending is refused (one response cannot answer two requests): an
 *   `acp.wire_warning` `duplicate_request_id` frame, and the handler answers it with a JSON-RPC error;
 * - a permission request under an id an earlier one of this session had (answered by now) gets a fresh
 *   approval id, `<approval id>~<n>`, announced by an `acp.approval_id` frame, so no two requests ever share
 *   an approval (an answer already given to the first can never settle the second);
 * - a permission request while `maxPending` others wait for their answer is answered cancelled at once,
 *   never offered to the user: an `acp.wire_warning` `too_many_pending_permissions` frame. `cancelled` is
 *   ACP's one outcome that picks none of the agent's options (selecting its reject option would answer for
 *   the user); an error would say the request was malformed, and it is not;
 * - a late permission request (after the turn's answer, marked late in its own frame) is answered cancelled
 *   at once too: no turn is there to ask in.
 *
 * The verdict is taken when the request is recorded, not when the SDK calls the handler: by then the first
 * request may have been answered (its id free again) or a later one recorded.
 */
export class RequestLedger {
  /** JSON-RPC ids of the client's requests not answered yet: a response to any other id is stray. */
  private readonly openRequests = new Set<string | number>();
  /** By rpcKey: the agent's requests recorded and not answered yet. */
  private readonly pending = new Set<string>();
  /** By rpcKey: requests sent again under a pending id whose refusal is not recorded yet. */
  private readonly refusals = new Map<string, number>();
  /** Every approval id this session gave out. */
  private readonly used = new Set<string>();
  /** By rpcKey: the verdict on each permission request, in order, until its handler takes it. */
  private readonly verdicts = new Map<string, Verdict[]>();
  /** By rpcKey: permission requests given an approval and not answered yet (what the cap counts). */
  private readonly waiting = new Set<string>();

  constructor(private readonly maxPending = MAX_PENDING_PERMISSIONS) {}

  /**
   * Whether an agent's message, about to be recorded, goes on to the SDK. Not a response to no request the
   * client is waiting for (stray, or without a usable id): the SDK can do nothing with one but print a line
   * (console.error "Got response to unknown request" / "Invalid message"), one per message, and an agent
   * sending thousands flooded the server's log. It is recorded all the same (a stray one after its warning).
   * Ask before record(), which closes the request a response answers.
   */
  reachesSdk(dir: WireDirection, rpc: JsonObject | undefined, id: string | number | undefined): boolean {
    if (dir !== 'agent->client' || !rpc || 'method' in rpc) return true;
    // What the SDK takes for a response (the others it refuses as an invalid request, without a line).
    if (!('id' in rpc || 'result' in rpc || 'error' in rpc)) return true;
    return id !== undefined && this.openRequests.has(id);
  }

  /**
   * One JSON-RPC message either way, as it is recorded (`id` its id, when a string or number; `late`: the
   * turn window's verdict); returns the frames to record just before it. A response to no open request of
   * the client is stray: its warning goes first, so the translator skips the response itself (no
   * harness.error for it, no result read by its shape).
   */
  record(
    dir: WireDirection,
    rpc: JsonObject | undefined,
    id: string | number | undefined,
    late = false,
  ): JsonValue[] {
    if (id === undefined || !rpc) return [];
    const method = asString(rpc.method);
    if (dir === 'client->agent') {
      if (method !== undefined) this.openRequests.add(id);
      else this.answered(id, rpc.error !== undefined);
      return [];
    }
    if (method === undefined) {
      return this.openRequests.delete(id)
        ? []
        : [{ event: ACP_WIRE_WARNING_EVENT, reason: 'stray_response', id }];
    }
    const handled = reachesPermissionHandler(method, rpc.params);
    const before = this.requested(id, method, handled, late);
    return before === undefined ? [] : [before];
  }

  /**
   * An agent request as it is recorded; returns the frame to record just before it, if any. `handled`:
   * agentlane's permission handler will be called for it (the SDK checked its params): it takes a verdict.
   * One the SDK refuses is answered at once and offers nothing, so the cap leaves it to its own warning.
   */
  private requested(
    id: string | number,
    method: string,
    handled: boolean,
    late: boolean,
  ): JsonValue | undefined {
    const key = rpcKey(id);
    let verdict: Verdict;
    let before: JsonValue | undefined;
    if (this.pending.has(key)) {
      this.refusals.set(key, (this.refusals.get(key) ?? 0) + 1);
      verdict = { kind: 'duplicate' };
      before = { event: ACP_WIRE_WARNING_EVENT, reason: 'duplicate_request_id', id, method };
    } else {
      this.pending.add(key);
      if (method !== PERMISSION) return undefined;
      if (late && handled) verdict = { kind: 'cancel' };
      else if (this.waiting.size >= this.maxPending && handled) {
        verdict = { kind: 'cancel' };
        before = {
          event: ACP_WIRE_WARNING_EVENT,
          reason: 'too_many_pending_permissions',
          id,
          limit: this.maxPending,
        };
      } else {
        const approvalId = nextApprovalId(id, (a) => this.used.has(a));
        this.used.add(approvalId);
        this.waiting.add(key);
        verdict = { kind: 'approval', approvalId };
        if (approvalId !== approvalIdFor(id)) before = { event: ACP_APPROVAL_ID_EVENT, id, approvalId };
      }
    }
    if (handled) this.verdicts.set(key, [...(this.verdicts.get(key) ?? []), verdict]);
    return before;
  }

  /** The client's response as it is recorded: an error answers a refusal first. */
  private answered(id: string | number, isError: boolean): void {
    const key = rpcKey(id);
    const refused = this.refusals.get(key) ?? 0;
    if (isError && refused > 0) {
      if (refused > 1) this.refusals.set(key, refused - 1);
      else this.refusals.delete(key);
      return;
    }
    this.pending.delete(key);
    this.waiting.delete(key);
  }

  /** The handler of a permission request: its verdict (recorded with the request). */
  take(id: string | number): Verdict {
    const key = rpcKey(id);
    const queue = this.verdicts.get(key);
    const verdict = queue?.shift() ?? { kind: 'approval', approvalId: approvalIdFor(id) };
    if (queue?.length === 0) this.verdicts.delete(key);
    return verdict;
  }
}
