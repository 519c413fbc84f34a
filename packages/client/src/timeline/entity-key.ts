import { assertNeverEvent, type CanonicalEvent } from '@agentlane/contract';

/**
 * Which entity of its timeline an event belongs to. Rows of one entity are folded together (deltas into a
 * message, progress into a tool card); every other event is an entity of its own, keyed by its eventId.
 */
export function entityKeyOf(event: CanonicalEvent): string {
  switch (event.kind) {
    case 'session.started':
      return 'session';
    case 'session.metadata':
      return 'metadata';
    case 'commands.updated':
      return 'commands';
    case 'mode.updated':
      return 'mode';
    case 'plan.updated':
      return 'plan';
    case 'turn.started':
    case 'turn.completed':
      return `turn:${event.turnId}`;
    // Message and reasoning ids are the engine's, unique within a turn but not always across turns (the
    // built-in engine numbers them by model step): a later turn's answer replaced the first one's.
    case 'message.started':
    case 'message.delta':
    case 'message.completed':
      return `message:${event.turnId}:${event.payload.messageId}`;
    case 'reasoning.delta':
    case 'reasoning.completed':
      return `reasoning:${event.turnId}:${event.payload.reasoningId}`;
    case 'tool.started':
    case 'tool.progress':
    case 'tool.completed':
      return `tool:${event.payload.toolCallId}`;
    case 'terminal.output':
      return `terminal:${event.payload.terminalId}`;
    case 'child.started':
    case 'child.updated':
    case 'child.completed':
      return `child:${event.payload.childSessionId}`;
    case 'approval.requested':
    case 'approval.resolved':
      return `approval:${event.payload.approvalId}`;
    case 'question.requested':
    case 'question.resolved':
      return `question:${event.payload.questionId}`;
    case 'usage.updated':
      return event.payload.scope === 'session' ? 'usage:session' : `usage:turn:${event.turnId}`;
    case 'file.changed':
    case 'artifact.created':
    case 'artifact.delivered':
    case 'context.marker':
    case 'harness.warning':
    case 'harness.error':
      return `event:${event.eventId}`;
    default:
      return assertNeverEvent(event);
  }
}

export function timelineKeyOf(namespace: readonly string[]): string {
  return namespace.join('/');
}

/** The entity key qualified by its timeline, unique across the whole state. */
export function qualifiedKey(namespace: readonly string[], localKey: string): string {
  return `${timelineKeyOf(namespace)}#${localKey}`;
}
