import type {
  ArtifactRef,
  AuditableCall,
  CanonicalEventDraft,
  CanonicalIdentity,
  JsonValue,
  ProviderId,
} from '@agentlane/contract';
import type { NativeFrameRecord } from './native-frame.js';

export interface TranslationContext {
  threadId: string;
  runId: string;
  turnId: string;
  provider: ProviderId;
  nativeSessionId?: string;
}

/** One event a translator produced, before the lane wraps it in the envelope. */
export interface TranslatedEvent {
  /**
   * Stable key within the run. The lane derives the eventId from (runId, key), so re-translating a sealed
   * source reproduces the same ids. Emitting the same key again with changed content makes a new revision
   * (e.g. a cumulative snapshot that corrects earlier text); the same content again is a no-op.
   */
  key: string;
  draft: CanonicalEventDraft;
  /** Native ids for provenance; `provider` is filled in by the lane when absent. */
  identity?: Omit<CanonicalIdentity, 'provider'> & { provider?: ProviderId };
  /** Path of child session ids for events of sub-agents. */
  namespace?: string[];
}

/**
 * Content the lane stores in the artifact store, referenced by events of the same step: in memory, or in a
 * local `file` (an engine's overflow file, too large to hold in memory), which the lane stores streamed from
 * the file, checked against `ref.sha256`. A file may be gone when a source is translated again later (another
 * process, a restart): the live pass stored it by then, or the event names an artifact that is not there.
 */
export type ArtifactContent =
  | { ref: ArtifactRef; content: string | Uint8Array }
  | { ref: ArtifactRef; file: string };

export interface TranslationStep<S> {
  state: S;
  events: TranslatedEvent[];
  artifacts?: ArtifactContent[];
  /**
   * Audit ledger rows the frames describe (a model or tool call that ended). The lane writes them to the
   * ledger; the row's idempotency key makes re-translation of the same frames a no-op there.
   */
  audit?: AuditableCall[];
}

/**
 * A pure translator from one engine's native frames to canonical events, with explicit serialisable state,
 * so a run can be re-translated from its sealed source and the result is the same every time.
 * It must never throw on a bad frame: an unknown or malformed frame becomes a harness.warning.
 */
export interface Translator<S extends JsonValue = JsonValue> {
  readonly provider: ProviderId;
  initialState(ctx: TranslationContext): S;
  translate(frame: NativeFrameRecord, state: S, ctx: TranslationContext): TranslationStep<S>;
  /** Called once at the end of the sealed source: close whatever is still open. */
  finish(state: S, ctx: TranslationContext): TranslationStep<S>;
}
