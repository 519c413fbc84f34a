import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CanonicalEvent } from '@agentlane/contract';

const repo = (path: string) => fileURLToPath(new URL(`../../../../${path}`, import.meta.url));

/** Canonical events recorded from real engines (the adapters' golden outputs) and the built-in engine's corpus. */
export const RECORDED = {
  'claude-agent-acp': 'packages/adapters/acp/test/__fixtures__/claude-agent-acp.wire.expected.jsonl',
  'codex-acp': 'packages/adapters/acp/test/__fixtures__/codex-acp.wire.expected.jsonl',
  opencode: 'packages/adapters/opencode/test/__fixtures__/opencode.expected.json',
  builtin: 'packages/runtime/test/fixtures/corpus/plan-write-approval.json',
} as const;

export type RecordedName = keyof typeof RECORDED;

/** The events of a recording as the rows a thread stream delivers them in (deliverySeq 1, 2, …). */
export function recordedRows(name: RecordedName): { deliverySeq: number; event: CanonicalEvent }[] {
  const text = readFileSync(repo(RECORDED[name]), 'utf8');
  let events: CanonicalEvent[];
  if (RECORDED[name].endsWith('.jsonl')) {
    events = text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as CanonicalEvent);
  } else {
    const parsed = JSON.parse(text) as CanonicalEvent[] | { events: CanonicalEvent[] };
    events = Array.isArray(parsed) ? parsed : parsed.events;
  }
  return events.map((event, i) => ({
    deliverySeq: i + 1,
    event: { ...event, eventId: event.eventId ?? `ev_${i}`, runId: event.runId ?? 'run_fixture' },
  }));
}
