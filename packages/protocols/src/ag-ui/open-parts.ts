import { type Event, EventType } from '@ag-ui/core';
import type { JsonValue } from '@agentlane/contract';

/** Gives an AG-UI event the timestamp of the canonical event being translated. */
export type Stamp = <E extends Event>(event: E) => E;

interface Open {
  text: Set<string>;
  reasoning: Set<string>;
  tools: Set<string>;
}

/**
 * The parts of one AG-UI stream and what of them is open: steps, text messages, reasoning and tool calls'
 * arguments. Each method appends to `out` the START/CONTENT/END events that bring a part to what the
 * canonical stream says, opening a step before content and the next one after tool results came.
 */
export class OpenParts {
  readonly #stamp: Stamp;
  readonly #textSent = new Map<string, string>();
  readonly #reasoningSent = new Map<string, string>();
  readonly #open: Open = { text: new Set(), reasoning: new Set(), tools: new Set() };
  /** Tool calls whose arguments are complete (TOOL_CALL_END sent), and those with a result. */
  readonly #argsDone = new Set<string>();
  readonly #argsText = new Map<string, string>();
  readonly #toolNames = new Map<string, string>();
  #step = 0;
  #stepOpen = false;
  #toolSettledInStep = false;

  constructor(stamp: Stamp) {
    this.#stamp = stamp;
  }

  /** A new stream starts from a snapshot in which nothing is open (see AgUiTranslator.forgetOpen). */
  forgetOpen(): void {
    this.#open.text.clear();
    this.#open.reasoning.clear();
    this.#open.tools.clear();
    this.#stepOpen = false;
    this.#toolSettledInStep = false;
  }

  /** Ends what is open: text, reasoning, tool calls' arguments, the step. */
  closeAll(out: Event[]): void {
    this.closeStep(out);
    for (const id of [...this.#open.tools]) this.#endArgs(id, out);
  }

  closeStep(out: Event[]): void {
    this.#endTextAndReasoning(out);
    if (this.#stepOpen)
      out.push(this.#stamp({ type: EventType.STEP_FINISHED, stepName: `step-${this.#step}` }));
    this.#stepOpen = false;
    this.#toolSettledInStep = false;
  }

  text(messageId: string, delta: string, out: Event[]): void {
    this.#content(out);
    if (!this.#open.text.has(messageId)) {
      this.#open.text.add(messageId);
      out.push(this.#stamp({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' }));
    }
    out.push(this.#stamp({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta }));
    this.#textSent.set(messageId, (this.#textSent.get(messageId) ?? '') + delta);
  }

  /** A completed message: what its deltas did not send yet, then its end. */
  completeText(messageId: string, text: string, out: Event[]): void {
    const rest = unsent(text, this.#textSent.get(messageId));
    if (rest !== null) this.text(messageId, rest, out);
    if (this.#open.text.delete(messageId))
      out.push(this.#stamp({ type: EventType.TEXT_MESSAGE_END, messageId }));
  }

  reasoning(id: string, delta: string, out: Event[]): void {
    this.#content(out);
    if (!this.#open.reasoning.has(id)) {
      this.#open.reasoning.add(id);
      out.push(this.#stamp({ type: EventType.REASONING_START, messageId: id }));
      out.push(this.#stamp({ type: EventType.REASONING_MESSAGE_START, messageId: id, role: 'reasoning' }));
    }
    out.push(this.#stamp({ type: EventType.REASONING_MESSAGE_CONTENT, messageId: id, delta }));
    this.#reasoningSent.set(id, (this.#reasoningSent.get(id) ?? '') + delta);
  }

  /** A completed reasoning: what its deltas did not send yet, then its end. */
  completeReasoning(id: string, text: string, out: Event[]): void {
    const rest = unsent(text, this.#reasoningSent.get(id));
    if (rest !== null) this.reasoning(id, rest, out);
    this.endReasoning(id, out);
  }

  endReasoning(id: string, out: Event[]): void {
    if (!this.#open.reasoning.delete(id)) return;
    out.push(this.#stamp({ type: EventType.REASONING_MESSAGE_END, messageId: id }));
    out.push(this.#stamp({ type: EventType.REASONING_END, messageId: id }));
  }

  /** TOOL_CALL_START once per call and stream (again after a snapshot while its arguments were open). */
  startTool(toolCallId: string, name: string, out: Event[]): void {
    if (this.#argsDone.has(toolCallId) || this.#open.tools.has(toolCallId)) return;
    this.#content(out);
    // A tool call follows the text before it (what AG-UI servers send and chat UIs render in order): the open
    // text and reasoning end first; a later delta of the same message opens it again under its id.
    this.#endTextAndReasoning(out);
    const known = this.#toolNames.get(toolCallId);
    this.#toolNames.set(toolCallId, known ?? name);
    this.#open.tools.add(toolCallId);
    out.push(this.#stamp({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName: known ?? name }));
  }

  /** A tool call with a result: its arguments are complete, and the next content opens a new step. */
  settleTool(toolCallId: string, out: Event[]): void {
    this.startTool(toolCallId, 'tool', out);
    this.toolArgs(toolCallId, undefined, true, out);
    this.#toolSettledInStep = true;
  }

  /** Streamed input in the append form: the piece is the args delta, no comparison with the text so far. */
  toolArgsDelta(toolCallId: string, delta: string, out: Event[]): void {
    if (this.#argsDone.has(toolCallId) || !this.#open.tools.has(toolCallId) || delta === '') return;
    out.push(this.#stamp({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta }));
    this.#argsText.set(toolCallId, (this.#argsText.get(toolCallId) ?? '') + delta);
  }

  /**
   * Arguments: a string input of a pending call is its JSON text so far (cumulative), sent as the suffix it
   * adds; an object input, or a call that runs, completes them (the whole JSON when none was streamed).
   */
  toolArgs(toolCallId: string, input: JsonValue | undefined, ready: boolean, out: Event[]): void {
    if (this.#argsDone.has(toolCallId) || !this.#open.tools.has(toolCallId)) return;
    const sent = this.#argsText.get(toolCallId) ?? '';
    if (typeof input === 'string') {
      if (input.startsWith(sent) && input.length > sent.length) {
        out.push(
          this.#stamp({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: input.slice(sent.length) }),
        );
        this.#argsText.set(toolCallId, input);
      }
      if (!ready) return;
    } else {
      const informative = input !== undefined && !isEmptyObject(input);
      if (!informative && !ready) return;
      if (informative && sent === '') {
        const whole = JSON.stringify(input);
        out.push(this.#stamp({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: whole }));
        this.#argsText.set(toolCallId, whole);
      }
    }
    this.#endArgs(toolCallId, out);
  }

  /** Before content: open a step, or the next one when tool results came in this one. */
  #content(out: Event[]): void {
    if (this.#stepOpen && this.#toolSettledInStep) this.closeStep(out);
    if (this.#stepOpen) return;
    this.#step += 1;
    this.#stepOpen = true;
    this.#toolSettledInStep = false;
    out.push(this.#stamp({ type: EventType.STEP_STARTED, stepName: `step-${this.#step}` }));
  }

  #endTextAndReasoning(out: Event[]): void {
    for (const id of this.#open.text)
      out.push(this.#stamp({ type: EventType.TEXT_MESSAGE_END, messageId: id }));
    this.#open.text.clear();
    for (const id of [...this.#open.reasoning]) this.endReasoning(id, out);
  }

  #endArgs(toolCallId: string, out: Event[]): void {
    if (this.#argsDone.has(toolCallId)) return;
    this.#argsDone.add(toolCallId);
    this.#open.tools.delete(toolCallId);
    out.push(this.#stamp({ type: EventType.TOOL_CALL_END, toolCallId }));
  }
}

/** The part of a completed text its deltas did not send, or null when they sent it all (or something else). */
function unsent(text: string, sent = ''): string | null {
  return text.length > sent.length && text.startsWith(sent) ? text.slice(sent.length) : null;
}

function isEmptyObject(value: JsonValue): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  );
}
