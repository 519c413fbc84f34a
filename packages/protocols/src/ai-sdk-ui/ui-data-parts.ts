import type { CanonicalEvent, CanonicalPayloads, JsonValue } from '@agentlane/contract';
import type { UiChunk } from './ui-chunk.js';

/** Terminal output kept per terminal for its data part (the part is replaced, so it carries the whole tail). */
const TERMINAL_TAIL_CHARS = 64 * 1024;

/**
 * The data parts that are replaced as their subject changes: a terminal's output tail, a child session's
 * state, a question and its answer. Each part carries everything known so far.
 */
export class UiDataParts {
  readonly #terminals = new Map<string, Record<string, JsonValue>>();
  readonly #children = new Map<string, Record<string, JsonValue>>();
  readonly #questions = new Map<string, Record<string, JsonValue>>();

  terminal(p: CanonicalPayloads['terminal.output'], out: UiChunk[]): void {
    const prev = this.#terminals.get(p.terminalId) ?? { terminalId: p.terminalId, output: '' };
    const output = `${prev.output as string}${p.chunk}`.slice(-TERMINAL_TAIL_CHARS);
    const next: Record<string, JsonValue> = {
      ...prev,
      ...(p.toolCallId ? { toolCallId: p.toolCallId } : {}),
      ...(p.command ? { command: p.command } : {}),
      ...(p.exit ? { exit: p.exit } : {}),
      output,
    };
    this.#terminals.set(p.terminalId, next);
    out.push({ type: 'data-terminal', id: p.terminalId, data: next });
  }

  child(event: Extract<CanonicalEvent, { kind: `child.${string}` }>, out: UiChunk[]): void {
    const id = event.payload.childSessionId;
    const status = event.kind === 'child.completed' ? event.payload.status : 'running';
    const merged = { ...this.#children.get(id), ...event.payload, status } as Record<string, JsonValue>;
    this.#children.set(id, merged);
    out.push({ type: 'data-child', id, data: merged });
  }

  question(event: Extract<CanonicalEvent, { kind: `question.${string}` }>, out: UiChunk[]): void {
    const id = event.payload.questionId;
    const status = event.kind === 'question.resolved' ? event.payload.outcome : 'pending';
    const merged = { ...this.#questions.get(id), ...event.payload, status } as Record<string, JsonValue>;
    this.#questions.set(id, merged);
    out.push({ type: 'data-question', id, data: merged });
  }
}
