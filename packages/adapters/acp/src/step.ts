import type { CanonicalEventDraft, CanonicalIdentity, JsonValue } from '@agentlane/contract';
import type { ArtifactContent, TranslatedEvent } from '@agentlane/engine-kit';
import { compact } from './narrow';
import type { AcpState } from './state';

type Identity = Omit<CanonicalIdentity, 'provider'>;

/** Collects the events and artifacts of one translation step, with keys stable per native frame. */
export class Step {
  readonly events: TranslatedEvent[] = [];
  readonly artifacts: ArtifactContent[] = [];
  private perFrame = new Map<string, number>();

  constructor(
    public state: AcpState,
    /** Stable per source frame (`f<nativeSeq>`), for keys of events without a native id of their own. */
    readonly frameKey: string,
    readonly receivedAt: string,
    readonly runId: string,
    private readonly identity: Identity,
  ) {}

  /** Emits under an explicit stable key (e.g. `message.completed:<id>`). */
  emit(key: string, draft: CanonicalEventDraft, identity?: Identity, namespace?: string[]): void {
    const event: TranslatedEvent = { key, draft, identity: compact({ ...this.identity, ...identity }) };
    if (namespace && namespace.length > 0) event.namespace = namespace;
    this.events.push(event);
  }

  /** Emits under a key derived from this frame: `<kind>:<frame>[:n]`, unique within the frame. */
  emitHere(draft: CanonicalEventDraft, identity?: Identity): void {
    const base = `${draft.kind}:${this.frameKey}`;
    const n = this.perFrame.get(base) ?? 0;
    this.perFrame.set(base, n + 1);
    this.emit(n === 0 ? base : `${base}:${n}`, draft, identity);
  }

  warn(code: string, message: string, detail?: JsonValue): void {
    this.emitHere({ kind: 'harness.warning', payload: compact({ code, message, detail }) });
  }

  addArtifact(artifact: ArtifactContent): void {
    if (!this.artifacts.some((a) => a.ref.id === artifact.ref.id)) this.artifacts.push(artifact);
  }
}
