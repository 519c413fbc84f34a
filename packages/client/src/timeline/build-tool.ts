import type { JsonValue } from '@agentlane/contract';
import { type EntityRows, idOf, last, ofKind } from './entity-rows.js';
import type { TimelineItem, ToolItem } from './types.js';

/** A tool card: started, then each progress step overriding what it carries, then completed. */
export function buildTool({ localKey, rows, base }: EntityRows): TimelineItem {
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
    toolCallId: idOf(localKey, 'tool'),
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

/** An event that is an entity of its own (keyed by its eventId): its payload is the item. */
export function buildSingle({ first, base }: EntityRows): TimelineItem | undefined {
  const event = first.event;
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
