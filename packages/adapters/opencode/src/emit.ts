import type { CanonicalEventDraft, CanonicalIdentity, JsonValue } from '@agentlane/contract';
import type { ArtifactContent, TranslatedEvent } from '@agentlane/engine-kit';
import type { OpenCodeState } from './state';

type Identity = Omit<CanonicalIdentity, 'provider'>;

/** Collects the events and artifacts of one translation step. */
export class StepOutput {
  readonly events: TranslatedEvent[] = [];
  readonly artifacts: ArtifactContent[] = [];

  constructor(
    readonly state: OpenCodeState,
    /** The native ids of the frame being translated, copied into every event it produces. */
    readonly baseIdentity: Identity,
    /** The frame's arrival time (ISO), used for answeredAt and durations. */
    readonly receivedAt: string,
    /** Stable per source frame (its nativeSeq), for keys of events that have no native id of their own. */
    readonly frameKey: string,
  ) {}

  emit(key: string, draft: CanonicalEventDraft, extra?: { identity?: Identity; namespace?: string[] }): void {
    const identity = { ...this.baseIdentity, ...extra?.identity };
    const event: TranslatedEvent = { key, draft, identity: dropUndefined(identity) };
    if (extra?.namespace && extra.namespace.length > 0) event.namespace = extra.namespace;
    this.events.push(event);
  }

  warn(code: string, message: string, detail?: JsonValue): void {
    const payload: { code: string; message: string; detail?: JsonValue } = { code, message };
    if (detail !== undefined) payload.detail = detail;
    this.emit(`harness.warning:${this.frameKey}:${this.events.length}`, {
      kind: 'harness.warning',
      payload,
    });
  }

  addArtifact(artifact: ArtifactContent): void {
    if (!this.artifacts.some((a) => a.ref.id === artifact.ref.id)) this.artifacts.push(artifact);
  }
}

function dropUndefined<T extends object>(value: T): T {
  const out = {} as T;
  for (const [k, v] of Object.entries(value)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
