import type { AuditableCall, JsonValue } from '@agentlane/contract';
import { type CanonicalEvent, SCHEMA_VERSION } from '@agentlane/contract';
import type {
  ArtifactContent,
  NativeFrameRecord,
  TranslatedEvent,
  TranslationContext,
  Translator,
} from '@agentlane/engine-kit';
import { deriveEventId } from './event-id';

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
  private readonly firstSeen = new Map<string, { seq: number; ts: string }>();
  private lastTs: string | null = null;

  constructor(
    private readonly translator: Translator,
    readonly ctx: TranslationContext,
  ) {
    this.state = translator.initialState(ctx);
  }

  push(record: NativeFrameRecord): BuiltStep {
    this.lastTs = record.receivedAt;
    try {
      const step = this.translator.translate(record, this.state, this.ctx);
      this.state = step.state;
      return {
        events: step.events.map((e) => this.build(e, record.receivedAt)),
        artifacts: step.artifacts ?? [],
        ...(step.audit && step.audit.length > 0 ? { audit: step.audit } : {}),
      };
    } catch (err) {
      // A translator must not throw; if one does, the frame becomes a warning and the state is kept.
      return {
        events: [
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
        ],
        artifacts: [],
      };
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
    let first = this.firstSeen.get(t.key);
    if (!first) {
      first = { seq: this.nextSeq++, ts };
      this.firstSeen.set(t.key, first);
    }
    const provider = t.identity?.provider ?? this.translator.provider;
    const identity = t.identity ? { ...t.identity, provider } : { provider };
    const event = {
      schemaVersion: SCHEMA_VERSION,
      eventId: deriveEventId(this.ctx.runId, t.key),
      seq: first.seq,
      runId: this.ctx.runId,
      threadId: this.ctx.threadId,
      turnId: this.ctx.turnId,
      ts: first.ts,
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
