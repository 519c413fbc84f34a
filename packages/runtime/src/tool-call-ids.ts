import { createHash } from 'node:crypto';
import type { ConversationMessage } from '@agentlane/contract';

/** An id as providers mint them (Anthropic allows `[a-zA-Z0-9_-]`); anything else is renamed. */
const PROVIDER_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Tool-call ids unique per conversation whatever the provider sends. Some servers number calls per message,
 * so `call_0` comes back in the next step: the runtime keys events, approvals (`apr-<id>`), ledger rows and
 * tool results by the id, so a reused one would overwrite the earlier call. A reused id gets a suffix
 * (`call_0-2`); ids stay in the provider's character set (Anthropic allows `[a-zA-Z0-9_-]`), and the renamed
 * id is what the history sends back, so the provider sees a consistent conversation. An id outside that set
 * or over 64 characters (control characters, a NUL, bidi marks, 70,000 characters: approvals named after it
 * could not be answered, two long ids shared one preview), or one holding a secret the model server echoed
 * (it went into checkpoints), becomes `call_` + 24 hex digits of its sha256.
 */
export class ToolCallIds {
  private readonly used = new Set<string>();
  /** Provider id → the id in use for it in the current model call. */
  private current = new Map<string, string>();
  /** Unique ids whose `tool-call` part has arrived in the current model call. */
  private called = new Set<string>();

  constructor(
    history: readonly ConversationMessage[],
    /** Whether a text holds one of the turn's secrets. */
    private readonly holdsSecret: (text: string) => boolean = () => false,
  ) {
    for (const m of history)
      for (const p of m.parts)
        if (p.type === 'tool-call' || p.type === 'tool-result') this.used.add(p.toolCallId);
  }

  /** A new model call: provider ids seen in earlier calls are taken. */
  startCall(): void {
    this.current = new Map();
    this.called = new Set();
  }

  /** The unique id for an AI SDK stream part's provider id (the part's type decides whether a call begins). */
  map(type: string, providerId: string): string {
    const known = this.current.get(providerId);
    if (
      type === 'tool-input-start' ||
      (type === 'tool-call' && (known === undefined || this.called.has(known)))
    ) {
      const fresh = this.fresh(providerId);
      this.current.set(providerId, fresh);
      if (type === 'tool-call') this.called.add(fresh);
      return fresh;
    }
    if (type === 'tool-call' && known !== undefined) this.called.add(known);
    return known ?? this.clean(providerId);
  }

  private clean(providerId: string): string {
    return PROVIDER_ID.test(providerId) && !this.holdsSecret(providerId)
      ? providerId
      : `call_${createHash('sha256').update(providerId).digest('hex').slice(0, 24)}`;
  }

  private fresh(providerId: string): string {
    const clean = this.clean(providerId);
    let id = clean;
    for (let n = 2; this.used.has(id); n++) id = `${clean}-${n}`;
    this.used.add(id);
    return id;
  }
}

const ID_FIELD: Record<string, 'id' | 'toolCallId'> = {
  'tool-input-start': 'id',
  'tool-input-delta': 'id',
  'tool-input-end': 'id',
  'tool-call': 'toolCallId',
  'tool-result': 'toolCallId',
  'tool-error': 'toolCallId',
  'tool-output-denied': 'toolCallId',
};

/** An AI SDK stream part with its tool-call id replaced by the unique one (the part itself is not changed). */
export function withUniqueCallId<P extends { type: string }>(part: P, ids: ToolCallIds): P {
  const field = ID_FIELD[part.type];
  const record = part as unknown as Record<string, unknown>;
  if (field && typeof record[field] === 'string')
    return { ...part, [field]: ids.map(part.type, record[field] as string) };
  if (part.type === 'tool-approval-request') {
    const call = record.toolCall as { toolCallId?: unknown } | undefined;
    if (call && typeof call.toolCallId === 'string')
      return { ...part, toolCall: { ...call, toolCallId: ids.map(part.type, call.toolCallId) } };
  }
  return part;
}
