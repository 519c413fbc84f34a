import type { AuditableCall, CanonicalEventDraft, JsonObject, JsonValue } from '@agentlane/contract';
import { isHarnessFrame } from '../harness-frame.js';
import { emptyIdMap, type IdMap, idGet, idSet } from '../persistent/id-map.js';
import { engineErrorPayload } from '../translate/harness.js';
import { isObject } from '../translate/narrow.js';
import type { TranslatedEvent, TranslationStep, Translator } from '../translator.js';
import { checkExternalAudit, checkExternalEvent, type ExternalEventDraft } from './external-frames.js';

/** The provider id of events an outside runtime sent (their `identity.provider`). */
export const EXTERNAL_PROVIDER = 'external';

interface ExternalState extends JsonObject {
  /** A root `turn.completed` came from the runtime: the lane's turn.ended adds none. */
  completed: boolean;
  /**
   * The kind of each key emitted so far: a later draft of a key is a revision of that event, which must stay
   * of its kind. (A state made before it was kept has none: idGet and idSet take that as empty.)
   */
  kinds: IdMap<string>;
}

/** The keys of the events this translator makes itself: a runtime's draft may not take one. */
const OWN_KEYS = 'external.';

const warning = (seq: number, message: string, detail?: JsonValue): TranslatedEvent => ({
  key: `external.bad_frame:${seq}`,
  draft: {
    kind: 'harness.warning',
    payload: { code: 'external.bad_frame', message, ...(detail !== undefined ? { detail } : {}) },
  },
});

/**
 * The translator of an outside runtime's frames: its event drafts pass through as they are (it drafted them
 * itself, keys included), its audit rows go to the ledger. A frame that is not one of them, a draft the
 * contract refuses, or a draft that would change the kind of an event already emitted (refusedKey), becomes
 * `harness.warning` `external.bad_frame` (never a throw). Of the lane's harness frames only the end matters: a
 * turn the runtime left without `turn.completed` (it failed, was cancelled, or went silent) gets one, after a
 * `harness.error` naming why.
 */
export const externalTranslator: Translator<ExternalState> = {
  provider: EXTERNAL_PROVIDER,
  initialState: () => ({ completed: false, kinds: emptyIdMap<string>() }),
  translate(record, state, ctx): TranslationStep<ExternalState> {
    const frame = record.frame;
    if (isHarnessFrame(frame)) {
      if (frame.harness === 'engine.error') {
        return {
          state,
          events: [
            {
              key: `external.engine-error:${record.nativeSeq}`,
              draft: {
                kind: 'harness.error',
                payload: engineErrorPayload(frame),
              },
            },
          ],
        };
      }
      if (frame.harness !== 'turn.ended' || state.completed) return { state, events: [] };
      const stopReason =
        frame.outcome === 'completed' ? 'end_turn' : frame.outcome === 'cancelled' ? 'cancelled' : 'error';
      const events: TranslatedEvent[] = [];
      if (frame.outcome === 'failed' && frame.error !== undefined)
        events.push({
          key: 'external.turn-failed',
          draft: {
            kind: 'harness.error',
            payload: { code: 'turn_failed', message: frame.error, fatal: true },
          },
        });
      // The key a runtime's own turn.completed has, unless a draft of another kind took it.
      const taken = idGet(state.kinds, 'turn.completed');
      const key =
        taken === undefined || taken === 'turn.completed' ? 'turn.completed' : `${OWN_KEYS}turn-completed`;
      events.push({ key, draft: { kind: 'turn.completed', payload: { stopReason } } });
      return { state: { ...state, completed: true }, events };
    }
    if (isObject(frame) && 'event' in frame && Object.keys(frame).length === 1) {
      const issue = checkExternalEvent(frame.event);
      if (issue)
        return { state, events: [warning(record.nativeSeq, `event draft ${issue.path}: ${issue.message}`)] };
      const draft = frame.event as unknown as ExternalEventDraft;
      const refused = refusedKey(state, draft);
      if (refused) return { state, events: [warning(record.nativeSeq, refused)] };
      const event: TranslatedEvent = {
        key: draft.key,
        draft: { kind: draft.kind, payload: draft.payload } as CanonicalEventDraft,
        ...(draft.namespace ? { namespace: draft.namespace } : {}),
        ...(draft.identity ? { identity: draft.identity } : {}),
      };
      const root = !draft.namespace || draft.namespace.length === 0;
      return {
        state: {
          ...state,
          completed: state.completed || (root && draft.kind === 'turn.completed'),
          kinds: idSet(state.kinds, draft.key, draft.kind),
        },
        events: [event],
      };
    }
    if (isObject(frame) && 'audit' in frame && Object.keys(frame).length === 1) {
      const issue = checkExternalAudit(frame.audit, ctx);
      if (issue)
        return { state, events: [warning(record.nativeSeq, `audit row ${issue.path}: ${issue.message}`)] };
      return { state, events: [], audit: [frame.audit as unknown as AuditableCall] };
    }
    return {
      state,
      events: [
        warning(record.nativeSeq, `native frame ${record.nativeSeq} is not an { event } or { audit } frame`),
      ],
    };
  },
  finish: (state) => ({ state, events: [] }),
};

/**
 * Why a valid draft is refused (null: it is not): its key is one of this translator's own, or it was emitted
 * before as an event of another kind — a revision keeps its kind (a `message.delta` turned `turn.completed`
 * would rewrite what every client saw); the first stays.
 */
function refusedKey(state: ExternalState, draft: ExternalEventDraft): string | null {
  if (draft.key.startsWith(OWN_KEYS))
    return `event draft $.key: keys starting "${OWN_KEYS}" are the server's (${draft.key})`;
  const kind = idGet(state.kinds, draft.key);
  if (kind === undefined || kind === draft.kind) return null;
  return `event draft $.kind: ${draft.key} is a ${kind} event; a revision cannot make it a ${draft.kind}`;
}
