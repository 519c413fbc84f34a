import type { AuditableCall, CanonicalEventDraft, CanonicalIdentity, JsonValue } from '@agentlane/contract';
import type { ArtifactContent, TranslatedEvent, TranslationStep } from '../translator.js';
import { compact } from './narrow.js';

/** Native ids copied into an event's identity (the lane fills in `provider`). */
export type EventIdentity = Omit<CanonicalIdentity, 'provider'>;

export interface StepOptions<S> {
  /** The translator's state for this step; replaced or mutated by the handlers, returned by result(). */
  state: S;
  /** Stable per source frame (see frameKey), for keys of events without a native id of their own. */
  frameKey: string;
  /** The frame's arrival time (ISO; '' or the turn's start when a finish() has no frame). */
  receivedAt: string;
  runId?: string;
  /**
   * Native ids every event of the step carries. Without it (and without a per-event identity) events carry
   * no identity at all.
   */
  identity?: EventIdentity;
}

/**
 * The event-key scheme every translator follows. The lane derives an event's id from (runId, key), so a key
 * is a pure function of the source lane and re-translation reproduces the same ids:
 * - an event about something with a native or derived id is keyed `<kind>:<id>` (`tool.started:call_1`),
 *   chunks of it by their offset (`message.delta:<id>:<offset>`);
 * - an event that only this frame makes is keyed by the frame: `<kind>:<frameKey>`, then `:1`, `:2`, … for
 *   more of the same kind from the same frame (emitHere);
 * - a sub-agent's events are its own keys under `child:<path>:`.
 * The frame key is `<prefix><nativeSeq>`; each adapter keeps the prefix its stored runs were keyed with.
 */
export function frameKey(prefix: string, nativeSeq: number): string {
  return `${prefix}${nativeSeq}`;
}

/** Collects the events, artifacts and audit rows of one translation step. */
export class StepBuilder<S> {
  state: S;
  readonly frameKey: string;
  readonly receivedAt: string;
  readonly runId: string;
  /** Mutable: a handler that learns which native session a frame belongs to sets it for the rest. */
  readonly identity: EventIdentity | undefined;
  readonly events: TranslatedEvent[] = [];
  readonly artifacts: ArtifactContent[] = [];
  readonly audit: AuditableCall[] = [];
  private readonly perFrame = new Map<string, number>();

  constructor(options: StepOptions<S>) {
    this.state = options.state;
    this.frameKey = options.frameKey;
    this.receivedAt = options.receivedAt;
    this.runId = options.runId ?? '';
    this.identity = options.identity;
  }

  /** Emits under an explicit stable key (e.g. `message.completed:<id>`). */
  emit(
    key: string,
    draft: CanonicalEventDraft,
    options?: { identity?: EventIdentity; namespace?: string[] },
  ): void {
    const event: TranslatedEvent = { key, draft };
    if (this.identity || options?.identity)
      event.identity = compact({ ...this.identity, ...options?.identity });
    if (options?.namespace && options.namespace.length > 0) event.namespace = options.namespace;
    this.events.push(event);
  }

  /** Emits under a key derived from this frame: `<kind>:<frameKey>[:n]`, unique within the frame. */
  emitHere(draft: CanonicalEventDraft, options?: { identity?: EventIdentity }): void {
    const base = `${draft.kind}:${this.frameKey}`;
    const n = this.perFrame.get(base) ?? 0;
    this.perFrame.set(base, n + 1);
    this.emit(n === 0 ? base : `${base}:${n}`, draft, options);
  }

  /** A frame (or part of one) the translator cannot use: a harness.warning keyed by the frame. */
  warn(code: string, message: string, detail?: JsonValue): void {
    this.emitHere({ kind: 'harness.warning', payload: compact({ code, message, detail }) });
  }

  /** Adds content the lane stores in the artifact store; the same content twice is stored once. */
  addArtifact(artifact: ArtifactContent): void {
    if (!this.artifacts.some((a) => a.ref.id === artifact.ref.id)) this.artifacts.push(artifact);
  }

  /** The step's result; artifacts and audit rows only when there are any. */
  result(): TranslationStep<S> {
    return {
      state: this.state,
      events: this.events,
      ...(this.artifacts.length > 0 ? { artifacts: this.artifacts } : {}),
      ...(this.audit.length > 0 ? { audit: this.audit } : {}),
    };
  }
}

/** The frame key of the step finish() makes: it has no frame of its own. */
export const FINISH_FRAME_KEY = 'finish';

/** The builder of finish(): keyed `finish`, at `receivedAt` (the turn's start, or '' when unknown). */
export function finishStep<S>(
  state: S,
  ctx: { runId: string },
  receivedAt: string,
  identity?: EventIdentity,
): StepBuilder<S> {
  return new StepBuilder({
    state,
    frameKey: FINISH_FRAME_KEY,
    receivedAt,
    runId: ctx.runId,
    ...(identity ? { identity } : {}),
  });
}
