import type { UiChunk } from './ui-chunk.js';

interface OpenPart {
  /** The AI SDK part id; a part reopened after a step boundary gets a fresh one. */
  id: string;
  messageId: string | undefined;
}

/**
 * The text and reasoning parts of the assistant message and the steps around them. A step opens before the
 * first content chunk and closes at a `usage.updated` of scope `step`, or when new content follows a settled
 * tool call (engines that report no step usage). A text part whose final text disagrees with the deltas
 * already sent keeps what was sent (only a missing suffix is added).
 */
export class UiSteps {
  readonly #text = new Map<string, OpenPart>();
  readonly #reasoning = new Map<string, OpenPart>();
  /** Text sent per message / reasoning id, to add only what a `*.completed` has beyond it. */
  readonly #textSent = new Map<string, string>();
  readonly #reasoningSent = new Map<string, string>();
  #stepOpen = false;
  #toolSettledInStep = false;
  #reopened = 0;

  /**
   * The client of a new stream holds no open part (the AI SDK resets them per stream): the next delta opens a
   * new part. Its message still holds the step it was in, which goes on (no second `start-step`) unless
   * `stepEnded`: the stream that ended there closed it (a pause's `finish-step`).
   */
  forgetOpenParts(stepEnded: boolean): void {
    this.#text.clear();
    this.#reasoning.clear();
    if (!stepEnded) return;
    this.#stepOpen = false;
    this.#toolSettledInStep = false;
  }

  /** A tool call settled in this step: new content starts the next step. */
  toolSettled(): void {
    this.#toolSettledInStep = true;
  }

  /** Before a content chunk: open a step, or start the next one when tool results came in this one. */
  content(out: UiChunk[]): void {
    if (this.#stepOpen && this.#toolSettledInStep) this.closeStep(out);
    if (!this.#stepOpen) {
      out.push({ type: 'start-step' });
      this.#stepOpen = true;
      this.#toolSettledInStep = false;
    }
  }

  /** finish-step drops the client's open text and reasoning parts, so they are ended first. */
  closeStep(out: UiChunk[]): void {
    for (const part of this.#text.values()) out.push({ type: 'text-end', id: part.id });
    for (const part of this.#reasoning.values()) out.push({ type: 'reasoning-end', id: part.id });
    this.#text.clear();
    this.#reasoning.clear();
    if (this.#stepOpen) out.push({ type: 'finish-step' });
    this.#stepOpen = false;
    this.#toolSettledInStep = false;
  }

  messageDelta(messageId: string, partId: string, delta: string, out: UiChunk[]): void {
    this.#appendText(messageId, `${messageId}\u0000${partId}`, partId, delta, out);
  }

  messageCompleted(messageId: string, text: string, out: UiChunk[]): void {
    const sent = this.#textSent.get(messageId) ?? '';
    if (text.length > sent.length && text.startsWith(sent)) {
      const open = [...this.#text.entries()].filter(([, p]) => p.messageId === messageId).pop();
      const key = open?.[0] ?? `${messageId}\u0000final`;
      this.#appendText(messageId, key, `${messageId}-text`, text.slice(sent.length), out);
    }
    for (const [key, part] of [...this.#text]) {
      if (part.messageId !== messageId) continue;
      out.push({ type: 'text-end', id: part.id });
      this.#text.delete(key);
    }
  }

  reasoningDelta(reasoningId: string, delta: string, out: UiChunk[]): void {
    if (delta !== '') this.#appendReasoning(reasoningId, delta, out);
  }

  reasoningCompleted(reasoningId: string, text: string, out: UiChunk[]): void {
    const sent = this.#reasoningSent.get(reasoningId) ?? '';
    if (text.length > sent.length && text.startsWith(sent))
      this.#appendReasoning(reasoningId, text.slice(sent.length), out);
    const part = this.#reasoning.get(reasoningId);
    if (part) {
      out.push({ type: 'reasoning-end', id: part.id });
      this.#reasoning.delete(reasoningId);
    }
  }

  #freshId(base: string, taken: boolean): string {
    return taken ? `${base}~${++this.#reopened}` : base;
  }

  #appendText(messageId: string, key: string, baseId: string, delta: string, out: UiChunk[]): void {
    this.content(out);
    let part = this.#text.get(key);
    if (!part) {
      part = { id: this.#freshId(baseId, this.#textSent.has(messageId)), messageId };
      this.#text.set(key, part);
      out.push({ type: 'text-start', id: part.id });
    }
    out.push({ type: 'text-delta', id: part.id, delta });
    this.#textSent.set(messageId, (this.#textSent.get(messageId) ?? '') + delta);
  }

  #appendReasoning(reasoningId: string, delta: string, out: UiChunk[]): void {
    this.content(out);
    let part = this.#reasoning.get(reasoningId);
    if (!part) {
      part = { id: this.#freshId(reasoningId, this.#reasoningSent.has(reasoningId)), messageId: undefined };
      this.#reasoning.set(reasoningId, part);
      out.push({ type: 'reasoning-start', id: part.id });
    }
    out.push({ type: 'reasoning-delta', id: part.id, delta });
    this.#reasoningSent.set(reasoningId, (this.#reasoningSent.get(reasoningId) ?? '') + delta);
  }
}
