import type { CanonicalEvent, CanonicalEventKind, CanonicalEventOf } from './events.js';

/** Ends every switch over `kind`: an unhandled kind is a compile error here, not a silent drop at run time. */
export function assertNeverEvent(value: never): never {
  const kind = (value as { kind?: unknown } | null)?.kind;
  throw new Error(`unhandled canonical event kind: ${String(kind)}`);
}

/** One handler per kind; adding a kind to the union makes every visitor fail to compile until it handles it. */
export type CanonicalEventVisitor<R> = { [K in CanonicalEventKind]: (event: CanonicalEventOf<K>) => R };

export function visitEvent<R>(event: CanonicalEvent, visitor: CanonicalEventVisitor<R>): R {
  const handler = visitor[event.kind] as (e: CanonicalEvent) => R;
  return handler(event);
}
