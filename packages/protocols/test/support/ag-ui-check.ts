import { verifyEvents } from '@ag-ui/client';
import { type BaseEvent, EventType } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import { createParser } from 'eventsource-parser';
import { from, lastValueFrom, toArray } from 'rxjs';
import { expect } from 'vitest';

/** Every event passes AG-UI's own event schema, and the sequence passes its own order verifier. */
export async function expectValidAgUi(events: BaseEvent[]): Promise<void> {
  for (const event of events) {
    const parsed = EventSchemas.safeParse(event);
    expect(parsed.success, `${JSON.stringify(event)}: ${parsed.error?.message}`).toBe(true);
  }
  const verified = await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));
  expect(verified).toHaveLength(events.length);
}

export interface Frame {
  id: string | undefined;
  event: BaseEvent;
}

/** Reads an AG-UI SSE response into its frames; `stopAfter` aborts the read early (a dropped connection). */
export async function readFrames(res: Response, stopAfter = Number.POSITIVE_INFINITY): Promise<Frame[]> {
  const frames: Frame[] = [];
  const parser = createParser({
    onEvent: (e) => frames.push({ id: e.id, event: JSON.parse(e.data) as BaseEvent }),
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  while (frames.length < stopAfter) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  await reader.cancel().catch(() => {});
  return frames.slice(0, stopAfter === Number.POSITIVE_INFINITY ? undefined : stopAfter);
}

export const isTerminal = (e: BaseEvent) =>
  e.type === EventType.RUN_FINISHED || e.type === EventType.RUN_ERROR;
