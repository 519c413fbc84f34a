import { describe, expect, it } from 'vitest';
import {
  assertNeverEvent,
  CANONICAL_EVENT_KINDS,
  type CanonicalEvent,
  type CanonicalEventKind,
  type CanonicalEventVisitor,
  parseCanonicalEvent,
  visitEvent,
} from '../src/index';
import { loadValidEvents } from './support/fixtures';

/** A switch that must name every kind: removing a case is a compile error at assertNeverEvent. */
function surface(event: CanonicalEvent): string {
  switch (event.kind) {
    case 'session.started':
    case 'session.metadata':
    case 'turn.started':
    case 'turn.completed':
      return 'session';
    case 'message.started':
    case 'message.delta':
    case 'message.completed':
      return 'message';
    case 'reasoning.delta':
    case 'reasoning.completed':
      return 'reasoning';
    case 'plan.updated':
      return 'plan';
    case 'tool.started':
    case 'tool.progress':
    case 'tool.completed':
      return 'tool';
    case 'file.changed':
    case 'artifact.created':
    case 'artifact.delivered':
      return 'files';
    case 'terminal.output':
      return 'terminal';
    case 'child.started':
    case 'child.updated':
    case 'child.completed':
      return 'child';
    case 'approval.requested':
    case 'approval.resolved':
      return 'approval';
    case 'question.requested':
    case 'question.resolved':
      return 'question';
    case 'commands.updated':
    case 'mode.updated':
      return 'commands';
    case 'usage.updated':
      return 'usage';
    case 'context.marker':
      return 'context';
    case 'harness.warning':
    case 'harness.error':
      return 'diagnostics';
    default:
      return assertNeverEvent(event);
  }
}

describe('exhaustiveness', () => {
  const events = loadValidEvents();

  it('a full switch handles every example event', () => {
    expect(new Set(events.map(surface)).size).toBe(14);
  });

  it('the visitor dispatches each kind to its own handler with the narrowed type', () => {
    const visitor = Object.fromEntries(
      CANONICAL_EVENT_KINDS.map((kind) => [kind, (event: CanonicalEvent) => event.kind]),
    ) as CanonicalEventVisitor<CanonicalEventKind>;
    const typed: CanonicalEventVisitor<string> = {
      ...visitor,
      'message.delta': (event) => event.payload.delta,
      'harness.error': (event) => String(event.payload.fatal),
    };
    for (const event of events) {
      const expected =
        event.kind === 'message.delta'
          ? event.payload.delta
          : event.kind === 'harness.error'
            ? String(event.payload.fatal)
            : event.kind;
      expect(visitEvent(event, typed)).toBe(expected);
    }
  });

  it('assertNeverEvent throws a clear error when a value slips past the types', () => {
    const forged = { kind: 'from.the.future' } as unknown as never;
    expect(() => assertNeverEvent(forged)).toThrow('unhandled canonical event kind: from.the.future');
    expect(parseCanonicalEvent({ kind: 'from.the.future' }).ok).toBe(false);
  });
});
