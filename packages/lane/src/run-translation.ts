import type { AuditableCall, JsonObject, JsonValue } from '@agentlane/contract';
import { type CanonicalEvent, SCHEMA_VERSION } from '@agentlane/contract';
import type {
  ArtifactContent,
  NativeFrameRecord,
  SecretRedactor,
  TranslatedEvent,
  TranslationContext,
  Translator,
} from '@agentlane/engine-kit';
import { deriveEventId } from './event-id.js';
import { DEFAULT_ARTIFACT_THRESHOLD_BYTES, jsonLargerThan, MAX_ARTIFACT_MOVES } from './offload.js';
import { emptyShared, resolveShared } from './shared-strings/resolve.js';
import { MAX_RUN_WARNINGS, WarningBound } from './warning-bound.js';

/** A canonical event with its envelope built, plus the namespace it is stored under. */
export interface BuiltEvent {
  event: CanonicalEvent;
  namespace?: string[];
  /**
   * The first of the MAX_ARTIFACT_MOVES seqs reserved for the artifact.created events the Materializer makes
   * when it moves this event's payload out (set once the key's payload was large).
   */
  artifactSeq?: number;
}

export interface RunTranslationOptions {
  /**
   * Keeps the server's secrets out of the events and audit rows the translator makes of the frames. The frames
   * are redacted as they come (frame-guard.ts: a header split across two is, a key split is not), but a
   * translator joins frames: a key an engine split across two message chunks would be whole in
   * message.completed. Give the same redactor to the live pass and the final
   * pass (the events must be the same for the same frames).
   */
  redactor?: SecretRedactor;
  /** The Materializer's threshold: a key whose payload passes it gets seqs reserved for its artifacts. */
  artifactThresholdBytes?: number;
  /**
   * The harness.warning events the run stores one by one (MAX_RUN_WARNINGS; tests make it small). Give both
   * passes the same value: past it warnings are counted, and the count decides which ones are events.
   */
  maxWarnings?: number;
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
  /** The artifact seqs reserved for each key whose payload was large (see BuiltEvent.artifactSeq). */
  private readonly artifactSeqs = new Map<string, number>();
  private readonly artifactThreshold: number;
  private lastTs: string | null = null;
  /**
   * The identity of events whose translator gave none, shared by all of them (events are never mutated once
   * built): one object less per event on the hot path.
   */
  private readonly defaultIdentity: { provider: string };
  /** The events' and audit rows' redaction; its streaming state depends only on the frames translated. */
  private readonly redaction: EventRedaction | undefined;
  /** The large strings stored frames name instead of repeating them (shared-strings/resolve.ts). */
  private readonly shared = emptyShared();
  /** Which of the run's harness.warning events are stored and which only counted (warning-bound.ts). */
  private readonly warnings: WarningBound;

  constructor(
    private readonly translator: Translator,
    readonly ctx: TranslationContext,
    options: RunTranslationOptions = {},
  ) {
    this.state = translator.initialState(ctx);
    this.defaultIdentity = { provider: translator.provider };
    this.redaction = options.redactor?.active ? new EventRedaction(options.redactor) : undefined;
    this.artifactThreshold = options.artifactThresholdBytes ?? DEFAULT_ARTIFACT_THRESHOLD_BYTES;
    this.warnings = new WarningBound(options.maxWarnings ?? MAX_RUN_WARNINGS);
  }

  push(record: NativeFrameRecord): BuiltStep {
    const out: BuiltStep = { events: [], artifacts: [] };
    this.pushInto(record, out);
    if (out.audit?.length === 0) delete out.audit;
    return out;
  }

  /**
   * The frame as the engine emitted it, its shared strings put back; null (and a warning) when it names one
   * this run never declared: the frame is not translated (its placeholders would read as the engine's data).
   */
  private unshared(stored: NativeFrameRecord, out: BuiltStep): NativeFrameRecord | null {
    try {
      const frame = resolveShared(stored.frame, this.shared);
      return frame === stored.frame ? stored : { ...stored, frame };
    } catch (err) {
      const message = `native frame ${stored.nativeSeq} names a shared string it cannot have: ${errorMessage(err)}`;
      const draft = {
        kind: 'harness.warning',
        payload: { code: 'shared_string_unresolved', message },
      } as const;
      this.add({ key: `lane.shared-string:${stored.nativeSeq}`, draft }, stored.receivedAt, out.events);
      return null;
    }
  }

  /**
   * push() that appends the frame's events, artifacts and audit rows to `out` (whose `audit` it creates when
   * needed): a batch of frames is translated into one step, without a step object and arrays per frame.
   */
  pushInto(stored: NativeFrameRecord, out: BuiltStep): void {
    this.lastTs = stored.receivedAt;
    const record = this.unshared(stored, out);
    if (!record) return;
    let step: ReturnType<Translator['translate']>;
    try {
      step = this.translator.translate(record, this.state, this.ctx);
    } catch (err) {
      // A translator must not throw; if one does, the frame becomes a warning and the state is kept.
      this.add(
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
        out.events,
      );
      return;
    }
    this.state = step.state;
    for (const e of step.events) this.add(e, record.receivedAt, out.events);
    if (step.artifacts) for (const a of step.artifacts) out.artifacts.push(a);
    if (step.audit && step.audit.length > 0) {
      out.audit ??= [];
      for (const a of step.audit) out.audit.push(this.redaction ? this.redaction.audit(a) : a);
    }
  }

  /**
   * The end of the sealed source; its last event is the summary of the warnings not stored, if any were
   * (warning-bound.ts).
   */
  finish(fallbackTs: string): BuiltStep {
    const ts = this.lastTs ?? fallbackTs;
    let out: BuiltStep;
    try {
      const step = this.translator.finish(this.state, this.ctx);
      this.state = step.state;
      // Text still held back by the redaction of streams the source left open goes out first.
      const events = (this.redaction?.finish() ?? []).map((e) => this.build(e, ts));
      for (const e of step.events) this.add(e, ts, events);
      const audit = (step.audit ?? []).map((a) => (this.redaction ? this.redaction.audit(a) : a));
      out = {
        events,
        artifacts: step.artifacts ?? [],
        // Calls only the end of the source closes (a tool left running, a turn without its end).
        ...(audit.length > 0 ? { audit } : {}),
      };
    } catch (err) {
      out = { events: [], artifacts: [] };
      const message = `translator finish failed: ${errorMessage(err)}`;
      const draft = { kind: 'harness.warning', payload: { code: 'translator_error', message } } as const;
      this.add({ key: 'lane.translator-error:finish', draft }, ts, out.events);
    }
    const summary = this.warnings.summary();
    if (summary) this.addUnbounded(summary, ts, out.events);
    return out;
  }

  /**
   * A translated event built into `out` unless it is a warning past the run's bound (then it is counted, and
   * the first such is replaced by the warning saying so: warning-bound.ts).
   */
  private add(t: TranslatedEvent, ts: string, out: BuiltEvent[]): void {
    const admitted = this.warnings.admit(t, this.firstSeen.has(t.key));
    if (admitted) this.addUnbounded(admitted, ts, out);
  }

  /** A translated event built into `out`, redacted first (with the held text of the streams it closes before it). */
  private addUnbounded(t: TranslatedEvent, ts: string, out: BuiltEvent[]): void {
    if (!this.redaction) {
      out.push(this.build(t, ts));
      return;
    }
    for (const e of this.redaction.event(t, this.firstSeen.has(t.key))) out.push(this.build(e, ts));
  }

  private build(t: TranslatedEvent, ts: string): BuiltEvent {
    let seq = this.firstSeen.get(t.key);
    if (seq === undefined) {
      seq = this.nextSeq++;
      this.firstSeen.set(t.key, seq);
      this.firstTs[seq] = ts;
    }
    // Reserved when the key's payload is first large, in translation order: both passes translate every
    // emission, so both reserve the same seqs (the final pass materializes only last emissions).
    let artifactSeq = this.artifactSeqs.get(t.key);
    if (artifactSeq === undefined && jsonLargerThan(t.draft.payload, this.artifactThreshold)) {
      artifactSeq = this.nextSeq;
      this.nextSeq += MAX_ARTIFACT_MOVES;
      this.artifactSeqs.set(t.key, artifactSeq);
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
    const built: BuiltEvent =
      t.namespace && t.namespace.length > 0 ? { event, namespace: t.namespace } : { event };
    if (artifactSeq !== undefined) built.artifactSeq = artifactSeq;
    return built;
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A streaming redactor (SecretRedactor.stream()). */
type Stream = ReturnType<SecretRedactor['stream']>;

/**
 * The event kinds whose payload carries one piece of a streamed text: the field holding the piece, the stream
 * it belongs to, and the fields a held tail's own event repeats.
 */
const STREAMED: Record<string, { field: string; stream: (p: JsonObject) => string; keep: string[] }> = {
  'message.delta': {
    field: 'delta',
    stream: (p) => `message:${String(p.messageId)}:${String(p.partId)}`,
    keep: ['messageId', 'partId'],
  },
  'reasoning.delta': {
    field: 'delta',
    stream: (p) => `reasoning:${String(p.reasoningId)}`,
    keep: ['reasoningId', 'partId', 'messageId'],
  },
  'tool.progress': {
    field: 'inputDelta',
    stream: (p) => `tool:${String(p.toolCallId)}`,
    keep: ['toolCallId', 'status'],
  },
  // Each stream of a terminal (stdout, stderr: their chunks interleave) is a text of its own.
  'terminal.output': {
    field: 'chunk',
    stream: (p) => `terminal:${String(p.terminalId)}:${String(p.stream)}`,
    keep: ['terminalId', 'toolCallId', 'stream'],
  },
};

/** The streams an event ends (their held text must go out before it), as a prefix of their keys. */
function closes(kind: string, p: JsonObject): string | null {
  if (kind === 'message.completed') return `message:${String(p.messageId)}:`;
  if (kind === 'reasoning.completed') return `reasoning:${String(p.reasoningId)}`;
  if (kind === 'tool.completed') return `tool:${String(p.toolCallId)}`;
  // The chunk with the exit is a terminal's last: its streams end with it.
  if (kind === 'terminal.output' && p.exit !== undefined) return `terminal:${String(p.terminalId)}:`;
  if (kind === 'turn.completed') return '';
  return null;
}

/**
 * The server's secrets out of the events and audit rows of a run, where a translator joined frames that were
 * redacted one by one: every string of an event's payload and of an audit row goes through the one-shot
 * redactor (message.completed holds the joined text), and a streamed text's pieces (message.delta,
 * reasoning.delta, tool.progress's inputDelta, terminal.output's chunk) go through a StreamRedactor per
 * stream, so that a key split across two pieces is replaced whole in the deltas too. A piece is emitted
 * without the tail that may start a secret; that tail goes out as an event of its own (key
 * `lane.redaction-tail:<n>`) before the event that ends the stream (a terminal's exit chunk carries its own
 * stream's tail), or at the end of the source. Its state depends only on the events in their order, so the
 * live pass and the final pass make the same events.
 */
class EventRedaction {
  private readonly streams = new Map<string, { stream: Stream; last: TranslatedEvent }>();
  private tails = 0;

  constructor(private readonly redactor: SecretRedactor) {}

  /**
   * The events to build for one translated event: the held tails of the streams it ends, then the event,
   * redacted. `again`: the event's key was emitted before (a revision): it is redacted whole, not streamed.
   */
  event(t: TranslatedEvent, again: boolean): TranslatedEvent[] {
    const payload = t.draft.payload as unknown as JsonObject;
    if (payload === null || typeof payload !== 'object') return [t];
    const streamed = STREAMED[t.draft.kind];
    const piece = streamed ? payload[streamed.field] : undefined;
    const key = streamed && typeof piece === 'string' && !again ? streamed.stream(payload) : null;
    const closed = closes(t.draft.kind, payload);
    // A piece that ends its own stream (a terminal's exit chunk) carries that stream's tail itself.
    const out = closed === null ? [] : this.flush(closed, key);
    const safe = this.redactor.json(payload) as JsonObject;
    if (!streamed || key === null) {
      out.push(safe === payload ? t : withPayload(t, safe));
      return out;
    }
    let open = this.streams.get(key);
    if (!open) {
      open = { stream: this.redactor.stream(), last: t };
      this.streams.set(key, open);
    }
    open.last = t;
    let text = open.stream.push(piece as string);
    if (closed !== null && key.startsWith(closed)) {
      text += open.stream.flush();
      this.streams.delete(key);
    }
    out.push(withPayload(t, { ...safe, [streamed.field]: text }));
    return out;
  }

  /** The held tails of every stream still open (the end of the source). */
  finish(): TranslatedEvent[] {
    return this.flush('', null);
  }

  /** An audit row with every string redacted. */
  audit(row: AuditableCall): AuditableCall {
    return this.redactor.json(row as unknown as JsonValue) as unknown as AuditableCall;
  }

  /** The held tails of the open streams whose keys start with `prefix` (but `except`), each an event of its own. */
  private flush(prefix: string, except: string | null): TranslatedEvent[] {
    const out: TranslatedEvent[] = [];
    for (const [key, { stream, last }] of this.streams) {
      if (!key.startsWith(prefix) || key === except) continue;
      this.streams.delete(key);
      const tail = stream.flush();
      if (tail === '') continue;
      const streamed = STREAMED[last.draft.kind] as (typeof STREAMED)[string];
      const payload: JsonObject = {};
      const from = last.draft.payload as unknown as JsonObject;
      for (const k of streamed.keep)
        if (from[k] !== undefined) payload[k] = this.redactor.json(from[k] as JsonValue);
      payload[streamed.field] = tail;
      out.push({ ...withPayload(last, payload), key: `lane.redaction-tail:${++this.tails}` });
    }
    return out;
  }
}

function withPayload(t: TranslatedEvent, payload: JsonObject): TranslatedEvent {
  return { ...t, draft: { ...t.draft, payload } as TranslatedEvent['draft'] };
}
