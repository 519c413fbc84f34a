import type { CanonicalPayloads, JsonValue } from '@agentlane/contract';
import type { UiChunk } from './ui-chunk.js';
import type { UiSteps } from './ui-steps.js';

type ToolState = 'streaming' | 'available' | 'approval' | 'approved' | 'done';

interface ToolEntry {
  name: string;
  state: ToolState;
  /** The input text streamed so far as tool-input-delta (engines send it cumulative). */
  inputText: string;
  input: JsonValue | undefined;
}

/**
 * The tool parts of the assistant message: input streaming, output, and approvals (useChat answers approvals
 * on tool parts, so an approval of no known tool call gets a part of its own).
 */
export class UiTools {
  readonly #tools = new Map<string, ToolEntry>();
  readonly #approvalTool = new Map<string, string>();
  readonly #pending = new Set<string>();

  constructor(private readonly steps: UiSteps) {}

  /** Approvals asked and not answered yet. */
  get pendingApprovals(): number {
    return this.#pending.size;
  }

  started(p: CanonicalPayloads['tool.started'], out: UiChunk[]): void {
    if (this.#tools.has(p.toolCallId)) return;
    this.#startTool(p.toolCallId, p.name, p.title, out);
    this.#toolInput(p.toolCallId, p.input, p.status === 'running', out);
  }

  progress(p: CanonicalPayloads['tool.progress'], out: UiChunk[]): void {
    if (!this.#tools.has(p.toolCallId)) this.#startTool(p.toolCallId, 'tool', p.title, out);
    if (p.inputDelta !== undefined) this.#toolInputDelta(p.toolCallId, p.inputDelta, out);
    if (p.input !== undefined || p.status === 'running')
      this.#toolInput(p.toolCallId, p.input, p.status === 'running', out);
    const tool = this.#tools.get(p.toolCallId);
    if (p.partialOutput !== undefined && (tool?.state === 'available' || tool?.state === 'approved')) {
      out.push({
        type: 'tool-output-available',
        toolCallId: p.toolCallId,
        output: p.partialOutput,
        dynamic: true,
        preliminary: true,
      });
    }
  }

  completed(p: CanonicalPayloads['tool.completed'], out: UiChunk[]): void {
    if (!this.#tools.has(p.toolCallId)) this.#startTool(p.toolCallId, 'tool', undefined, out);
    const tool = this.#tools.get(p.toolCallId) as ToolEntry;
    if (tool.state === 'done') return;
    if (tool.state === 'streaming') this.#toolInput(p.toolCallId, undefined, true, out);
    tool.state = 'done';
    this.steps.toolSettled();
    if (p.status === 'completed') {
      const output = p.output ?? (p.outputArtifact as unknown as JsonValue | undefined) ?? null;
      out.push({ type: 'tool-output-available', toolCallId: p.toolCallId, output, dynamic: true });
    } else {
      out.push({
        type: 'tool-output-error',
        toolCallId: p.toolCallId,
        errorText: p.error ?? `tool call ${p.status}`,
        dynamic: true,
      });
    }
  }

  approvalRequested(p: CanonicalPayloads['approval.requested'], out: UiChunk[]): void {
    const toolCallId = p.toolCallId ?? `approval-${p.approvalId}`;
    if (!this.#tools.has(toolCallId)) this.#startTool(toolCallId, p.subject.kind, p.title, out);
    const tool = this.#tools.get(toolCallId) as ToolEntry;
    if (tool.state === 'done') return;
    if (tool.state === 'streaming')
      this.#toolInput(toolCallId, p.input ?? (p.subject as unknown as JsonValue), true, out);
    tool.state = 'approval';
    this.#approvalTool.set(p.approvalId, toolCallId);
    this.#pending.add(p.approvalId);
    out.push({ type: 'tool-approval-request', approvalId: p.approvalId, toolCallId });
  }

  approvalResolved(p: CanonicalPayloads['approval.resolved'], out: UiChunk[]): void {
    this.#pending.delete(p.approvalId);
    const toolCallId = this.#approvalTool.get(p.approvalId);
    const tool = toolCallId ? this.#tools.get(toolCallId) : undefined;
    if (!toolCallId || !tool || tool.state === 'done') return;
    const allowed = p.outcome === 'selected' && p.decision?.startsWith('allow') === true;
    if (allowed) {
      tool.state = 'approved';
      return;
    }
    tool.state = 'done';
    this.steps.toolSettled();
    out.push({ type: 'tool-output-denied', toolCallId });
  }

  #startTool(toolCallId: string, toolName: string, title: string | undefined, out: UiChunk[]): void {
    this.steps.content(out);
    this.#tools.set(toolCallId, { name: toolName, state: 'streaming', inputText: '', input: undefined });
    out.push({
      type: 'tool-input-start',
      toolCallId,
      toolName,
      dynamic: true,
      ...(title !== undefined ? { title } : {}),
    });
  }

  /** Streamed input in the append form: the piece goes on as it came, no comparison with the text so far. */
  #toolInputDelta(toolCallId: string, delta: string, out: UiChunk[]): void {
    const tool = this.#tools.get(toolCallId);
    if (tool?.state !== 'streaming' || delta === '') return;
    out.push({ type: 'tool-input-delta', toolCallId, inputTextDelta: delta });
    tool.inputText += delta;
  }

  /**
   * A string input while the call is pending is its JSON text so far (cumulative): sent as the suffix it adds.
   * Any other input, or a call that is running, makes the input available.
   */
  #toolInput(toolCallId: string, input: JsonValue | undefined, ready: boolean, out: UiChunk[]): void {
    const tool = this.#tools.get(toolCallId);
    if (!tool || (tool.state !== 'streaming' && tool.state !== 'available')) return;
    if (typeof input === 'string' && tool.state === 'streaming') {
      if (input.startsWith(tool.inputText) && input.length > tool.inputText.length) {
        out.push({
          type: 'tool-input-delta',
          toolCallId,
          inputTextDelta: input.slice(tool.inputText.length),
        });
        tool.inputText = input;
      }
      if (!ready) return;
      input = parseJson(input);
    }
    const informative = input !== undefined && !isEmptyObject(input);
    const changed = informative && JSON.stringify(input) !== JSON.stringify(tool.input);
    if (informative) tool.input = input;
    if (tool.state === 'available' ? !changed : !informative && !ready) return;
    tool.state = 'available';
    out.push({
      type: 'tool-input-available',
      toolCallId,
      toolName: tool.name,
      input: tool.input ?? parseJson(tool.inputText) ?? {},
      dynamic: true,
    });
  }
}

function isEmptyObject(value: JsonValue): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  );
}

/** A tool input text that is whole JSON, else undefined (a partial text stays text). */
function parseJson(text: string): JsonValue | undefined {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}
