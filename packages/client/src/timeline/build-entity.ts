import type { CanonicalEvent, CanonicalEventKind, CanonicalEventOf, JsonValue } from '@agentlane/contract';
import { timelineKeyOf } from './entity-key.js';
import type { EntityAside, StoredRow, TimelineItem, ToolItem, UsageTotals } from './types.js';

type Rows = readonly StoredRow[];

function ofKind<K extends CanonicalEventKind>(rows: Rows, kind: K): CanonicalEventOf<K>[] {
  return rows.filter((row) => row.event.kind === kind).map((row) => row.event as CanonicalEventOf<K>);
}

function last<T>(values: readonly T[]): T | undefined {
  return values[values.length - 1];
}

/** Joins deltas by part, parts in order of first appearance, deltas in row order. */
function assembleParts(deltas: { partId: string; delta: string }[]): { partId: string; text: string }[] {
  const parts = new Map<string, string>();
  for (const { partId, delta } of deltas) parts.set(partId, (parts.get(partId) ?? '') + delta);
  return [...parts].map(([partId, text]) => ({ partId, text }));
}

function emptyUsage(): UsageTotals {
  return { inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cachedInputTokens: 0, totalTokens: 0 };
}

export function usageFrom(payloads: CanonicalEventOf<'usage.updated'>['payload'][]): UsageTotals {
  const total = emptyUsage();
  for (const usage of payloads) {
    total.inputTokens += usage.inputTokens ?? 0;
    total.outputTokens += usage.outputTokens ?? 0;
    total.reasoningTokens += usage.reasoningTokens ?? 0;
    total.cachedInputTokens += usage.cachedInputTokens ?? 0;
    total.totalTokens += usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
    if (usage.contextUsedTokens !== undefined) total.contextUsedTokens = usage.contextUsedTokens;
    if (usage.contextWindowTokens !== undefined) total.contextWindowTokens = usage.contextWindowTokens;
    if (usage.model !== undefined) total.model = usage.model;
    if (usage.cost) {
      total.cost = {
        amount: (total.cost?.amount ?? 0) + usage.cost.amount,
        currency: usage.cost.currency,
      };
    }
  }
  return total;
}

/**
 * Builds one entity from all its rows (sorted by order). Pure: the same rows give the same entity, which
 * is what makes the reducer insensitive to duplicates and to the order revisions arrive in.
 */
export function buildEntity(
  localKey: string,
  rows: Rows,
  namespace: readonly string[],
  isFinal: (row: StoredRow) => boolean,
): TimelineItem | EntityAside | undefined {
  const first = rows[0];
  if (!first) return undefined;
  const lastRow = rows[rows.length - 1]!;
  const base = {
    key: localKey,
    order: first.order,
    runId: first.event.runId,
    turnId: first.event.turnId,
    ts: first.event.ts,
    provisional: rows.some((row) => !isFinal(row)),
  };
  const prefix = localKey.split(':', 1)[0];
  switch (prefix) {
    case 'session': {
      const started = last(ofKind(rows, 'session.started'));
      return started && { type: 'session', order: lastRow.order, value: started.payload };
    }
    case 'metadata': {
      const value = Object.assign({}, ...ofKind(rows, 'session.metadata').map((e) => e.payload));
      return { type: 'metadata', order: lastRow.order, value };
    }
    case 'commands': {
      const commands = last(ofKind(rows, 'commands.updated'));
      return commands && { type: 'commands', order: lastRow.order, value: commands.payload.commands };
    }
    case 'mode': {
      const mode = last(ofKind(rows, 'mode.updated'));
      return mode && { type: 'mode', order: lastRow.order, value: mode.payload };
    }
    case 'usage': {
      const updates = ofKind(rows, 'usage.updated').map((e) => e.payload);
      if (localKey === 'usage:session') {
        return {
          type: 'usage',
          order: lastRow.order,
          turnId: '',
          scope: 'session',
          value: usageFrom(updates.slice(-1)),
        };
      }
      const turnScoped = updates.filter((u) => u.scope === 'turn');
      const value = turnScoped.length > 0 ? usageFrom(turnScoped.slice(-1)) : usageFrom(updates);
      return { type: 'usage', order: lastRow.order, turnId: first.event.turnId, scope: 'turn', value };
    }
    case 'plan': {
      const plan = last(ofKind(rows, 'plan.updated'));
      return (
        plan && {
          ...base,
          type: 'plan',
          planId: plan.payload.planId,
          entries: plan.payload.entries,
          updates: rows.length,
        }
      );
    }
    case 'turn': {
      const started = ofKind(rows, 'turn.started')[0];
      const completed = last(ofKind(rows, 'turn.completed'));
      return {
        ...base,
        type: 'turn',
        prompt: started?.payload.prompt,
        model: started?.payload.model,
        mode: started?.payload.mode,
        status: completed ? 'completed' : 'running',
        stopReason: completed?.payload.stopReason,
        rawStopReason: completed?.payload.rawStopReason,
        durationMs: completed?.payload.durationMs,
      };
    }
    case 'message': {
      const started = ofKind(rows, 'message.started')[0];
      const completed = last(ofKind(rows, 'message.completed'));
      const parts = assembleParts(ofKind(rows, 'message.delta').map((e) => e.payload));
      return {
        ...base,
        type: 'message',
        messageId: localKey.slice('message:'.length),
        role: completed?.payload.role ?? started?.payload.role ?? 'assistant',
        text: completed ? completed.payload.text : parts.map((p) => p.text).join(''),
        parts,
        status: completed ? 'completed' : 'streaming',
      };
    }
    case 'reasoning': {
      const completed = last(ofKind(rows, 'reasoning.completed'));
      const deltas = ofKind(rows, 'reasoning.delta');
      const parts = assembleParts(
        deltas.map((e) => ({ partId: e.payload.partId ?? '', delta: e.payload.delta })),
      );
      return {
        ...base,
        type: 'reasoning',
        reasoningId: localKey.slice('reasoning:'.length),
        messageId: completed?.payload.messageId ?? deltas[0]?.payload.messageId,
        text: completed ? completed.payload.text : parts.map((p) => p.text).join(''),
        status: completed ? 'completed' : 'streaming',
        durationMs: completed?.payload.durationMs,
      };
    }
    case 'tool':
      return buildTool(localKey, rows, base);
    case 'terminal': {
      const chunks = ofKind(rows, 'terminal.output').map((e) => e.payload);
      return {
        ...base,
        type: 'terminal',
        terminalId: localKey.slice('terminal:'.length),
        toolCallId: chunks.find((c) => c.toolCallId)?.toolCallId,
        command: chunks.find((c) => c.command)?.command,
        streams: [...new Set(chunks.map((c) => c.stream))],
        output: chunks.map((c) => c.chunk).join(''),
        exit: last(chunks.filter((c) => c.exit))?.exit,
      };
    }
    case 'child': {
      const childSessionId = localKey.slice('child:'.length);
      const started = ofKind(rows, 'child.started')[0];
      const updated = last(ofKind(rows, 'child.updated'));
      const completed = last(ofKind(rows, 'child.completed'));
      return {
        ...base,
        type: 'child',
        childSessionId,
        childRunId: started?.payload.childRunId,
        parentToolCallId: started?.payload.parentToolCallId,
        title: updated?.payload.title ?? started?.payload.title,
        description: started?.payload.description,
        state: completed?.payload.status ?? updated?.payload.state ?? 'running',
        summary: completed?.payload.summary ?? updated?.payload.summary,
        timelineKey: timelineKeyOf([...namespace, childSessionId]),
      };
    }
    case 'approval': {
      const request = ofKind(rows, 'approval.requested')[0]?.payload;
      const resolution = last(ofKind(rows, 'approval.resolved'))?.payload;
      return {
        ...base,
        type: 'approval',
        approvalId: localKey.slice('approval:'.length),
        request,
        resolution,
        open: request !== undefined && resolution === undefined,
      };
    }
    case 'question': {
      const request = ofKind(rows, 'question.requested')[0]?.payload;
      const resolution = last(ofKind(rows, 'question.resolved'))?.payload;
      return {
        ...base,
        type: 'question',
        questionId: localKey.slice('question:'.length),
        request,
        resolution,
        open: request !== undefined && resolution === undefined,
      };
    }
    case 'event':
      return buildSingle(first.event, base);
    default:
      return undefined;
  }
}

type Base = Pick<TimelineItem, 'key' | 'order' | 'runId' | 'turnId' | 'ts' | 'provisional'>;

function buildTool(localKey: string, rows: Rows, base: Base): TimelineItem {
  const started = ofKind(rows, 'tool.started')[0]?.payload;
  const progress = ofKind(rows, 'tool.progress').map((e) => e.payload);
  const completed = last(ofKind(rows, 'tool.completed'))?.payload;
  let title = started?.title;
  let input: JsonValue = started?.input ?? null;
  let message: string | undefined;
  let partialOutput: string | undefined;
  let status: ToolItem['status'] = started?.status ?? 'pending';
  // Streamed input in the append form (inputDelta): the pieces since the last whole `input`, joined once.
  let pieces: string[] | null = null;
  for (const step of progress) {
    status = step.status;
    if (step.title !== undefined) title = step.title;
    if (step.inputDelta !== undefined) {
      pieces ??= [];
      pieces.push(step.inputDelta);
    }
    if (step.input !== undefined) {
      input = step.input;
      pieces = null;
    }
    if (step.message !== undefined) message = step.message;
    if (step.partialOutput !== undefined) partialOutput = step.partialOutput;
  }
  if (pieces) input = pieces.join('');
  if (completed) status = completed.status;
  return {
    ...base,
    type: 'tool',
    toolCallId: localKey.slice('tool:'.length),
    name: started?.name ?? 'tool',
    title,
    kind: started?.kind ?? 'other',
    input,
    status,
    message,
    partialOutput,
    output: completed?.output,
    outputArtifact: completed?.outputArtifact,
    error: completed?.error,
    durationMs: completed?.durationMs,
    parentToolCallId: started?.parentToolCallId,
  };
}

function buildSingle(event: CanonicalEvent, base: Base): TimelineItem | undefined {
  switch (event.kind) {
    case 'file.changed':
      return { ...base, ...event.payload, type: 'file' };
    case 'artifact.created':
      return { ...base, ...event.payload, type: 'artifact', delivered: false };
    case 'artifact.delivered':
      return { ...base, ...event.payload, type: 'artifact', delivered: true };
    case 'context.marker':
      return { ...base, ...event.payload, type: 'context' };
    case 'harness.warning':
      return { ...base, ...event.payload, type: 'warning' };
    case 'harness.error':
      return { ...base, ...event.payload, type: 'error' };
    default:
      return undefined;
  }
}
