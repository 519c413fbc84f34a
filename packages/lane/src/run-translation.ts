import type { AuditableCall, JsonValue } from '@agentlane/contract';
import { type CanonicalEvent, SCHEMA_VERSION } from '@agentlane/contract';
import type {
  ArtifactContent,
  NativeFrameRecord,
  TranslatedEvent,
  TranslationContext,
  Translator,
} from '@agentlane/engine-kit';
import { deriveEventId } from './event-id.js';

/** A canonical event with its envelope built, plus the namespace it is stored under. */
export interface BuiltEvent {
  event: CanonicalEvent;
  namespace?: string[];
}

export interface BuiltStep {
  events: BuiltEvent[];
  artifacts: ArtifactContent[];
  /** Audit rows the translator surfaced (see TranslationStep.audit). */
  audit?: AuditableCall[];
}

/**
 * Drives one provider's Translator over one run's frames and builds envelopes. The same class serves the live
 * pass and the final pass over the sealed source, so both produce identical events for identical frames:
 * - eventId = short sha256 of (runId, key);
 * - seq = position of the key's first emission in the run's translated order; a re-emitted key keeps its
 *   seq and ts, so an identical re-emission is byte-identical (a no-op) and a changed one is a revision;
 * - ts = receivedAt of the frame that first produced the key (never the provider's clock);
 * - identity.provider filled in from the translator when absent.
 */
export class RunTranslation {
  private state: JsonValue;
  private nextSeq = 1;
  /** The seq of each key's first emission; its ts is `firstTs[seq]` (one number per key, not an object). */
  private readonly firstSeen = new Map<string, number>();
  private readonly firstTs: string[] = [];
  private lastTs: string | null = null;
  /**
   * The identity of events whose translator gave none, shared by all of them (events are never mutated once
   * built): one object less per event on the hot path.
   */
  private readonly defaultIdentity: { provider: string };

  constructor(
    private readonly translator: Translator,
    readonly ctx: TranslationContext,
  ) {
    this.state = translator.initialState(ctx);
    this.defaultIdentity = { provider: translator.provider };
  }

  push(record: NativeFrameRecord): BuiltStep {
    const out: BuiltStep = { events: [], artifacts: [] };
    this.pushInto(record, out);
    if (out.audit?.length === 0) delete out.audit;
    return out;
  }

  /**
   * push() that appends the frame's events, artifacts and audit rows to `out` (whose `audit` it creates when
   * needed): a batch of frames is translated into one step, without a step object and arrays per frame.
   */
  pushInto(record: NativeFrameRecord, out: BuiltStep): void {
    this.lastTs = record.receivedAt;
    let step: ReturnType<Translator['translate']>;
    try {
      step = this.translator.translate(record, this.state, this.ctx);
    } catch (err) {
      // A translator must not throw; if one does, the frame becomes a warning and the state is kept.
      out.events.push(
        this.build(
          {
            key: `lane.translator-error:${record.nativeSeq}`,
            draft: {
              kind: 'harness.warning',
              payload: {
                code: 'translator_error',
                message: `the ${this.translator.provider} translator failed on native frame ${record.nativeSeq}: ${errorMessage(err)}`,
              },
            },
          },
          record.receivedAt,
        ),
      );
      return;
    }
    this.state = step.state;
    for (const e of step.events) out.events.push(this.build(e, record.receivedAt));
    if (step.artifacts) for (const a of step.artifacts) out.artifacts.push(a);
    if (step.audit && step.audit.length > 0) {
      out.audit ??= [];
      for (const a of step.audit) out.audit.push(a);
    }
  }

  /** The end of the sealed source. */
  finish(fallbackTs: string): BuiltStep {
    const ts = this.lastTs ?? fallbackTs;
    try {
      const step = this.translator.finish(this.state, this.ctx);
      this.state = step.state;
      return {
        events: step.events.map((e) => this.build(e, ts)),
        artifacts: step.artifacts ?? [],
        // Calls only the end of the source closes (a tool left running, a turn without its end).
        ...(step.audit && step.audit.length > 0 ? { audit: step.audit } : {}),
      };
    } catch (err) {
      return {
        events: [
          this.build(
            {
              key: 'lane.translator-error:finish',
              draft: {
                kind: 'harness.warning',
                payload: {
                  code: 'translator_error',
                  message: `translator finish failed: ${errorMessage(err)}`,
                },
              },
            },
            ts,
          ),
        ],
        artifacts: [],
      };
    }
  }

  private build(t: TranslatedEvent, ts: string): BuiltEvent {
    let seq = this.firstSeen.get(t.key);
    if (seq === undefined) {
      seq = this.nextSeq++;
      this.firstSeen.set(t.key, seq);
      this.firstTs[seq] = ts;
    }
    const identity = t.identity
      ? { ...t.identity, provider: t.identity.provider ?? this.translator.provider }
      : this.defaultIdentity;
    const event = {
      schemaVersion: SCHEMA_VERSION,
      eventId: deriveEventId(this.ctx.runId, t.key),
      seq,
      runId: this.ctx.runId,
      threadId: this.ctx.threadId,
      turnId: this.ctx.turnId,
      ts: this.firstTs[seq] as string,
      identity,
      kind: t.draft.kind,
      payload: t.draft.payload,
    } as CanonicalEvent;
    return t.namespace && t.namespace.length > 0 ? { event, namespace: t.namespace } : { event };
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
