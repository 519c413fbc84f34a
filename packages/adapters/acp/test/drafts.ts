import type { JsonValue } from '@agentlane/contract';
import { acpTranslator } from '../src';
import { records, translateAll } from './trace';

/** The event drafts of frames translated in one pass (finish included). */
export function drafts(frames: JsonValue[]) {
  return translateAll(acpTranslator, records(frames)).events.map((e) => e.event.draft);
}
export type Drafts = ReturnType<typeof drafts>;

/** The payloads of one kind, in order. */
export const ofKind = (ds: Drafts, kind: string) =>
  ds.filter((d) => d.kind === kind).map((d) => d.payload as Record<string, JsonValue>);

/** The codes of the harness.warning events, in order. */
export const warnings = (ds: Drafts) => ofKind(ds, 'harness.warning').map((p) => p.code);
