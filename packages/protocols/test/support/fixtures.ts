import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CanonicalEvent } from '@agentlane/contract';

const repo = (path: string) => fileURLToPath(new URL(`../../../../${path}`, import.meta.url));

/** Canonical events recorded from real engines (the adapters' golden outputs) and the built-in engine's corpus. */
export const RECORDED = {
  'claude-agent-acp': 'packages/adapters/acp/test/__fixtures__/claude-agent-acp.wire.expected.jsonl',
  'codex-acp': 'packages/adapters/acp/test/__fixtures__/codex-acp.wire.expected.jsonl',
  opencode: 'packages/adapters/opencode/test/__fixtures__/opencode.expected.json',
  builtin: 'testing/corpus-recorder/fixtures/corpus/plan-write-approval.json',
  'builtin-question': 'testing/corpus-recorder/fixtures/corpus/ask-user-question.json',
  'builtin-subagent': 'testing/corpus-recorder/fixtures/corpus/subagent-task.json',
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

/** A tool call whose input streams in the append form (tool.progress inputDelta), then arrives whole. */
export function appendInputRows(): { deliverySeq: number; event: CanonicalEvent }[] {
  const base = {
    schemaVersion: 1,
    runId: 'run_fixture',
    threadId: 'thr',
    turnId: 'run_fixture',
    ts: '2026-01-01T00:00:00Z',
    identity: { provider: 'x' },
  };
  const payloads: [string, unknown][] = [
    ['tool.started', { toolCallId: 'c1', name: 'write', kind: 'edit', input: {}, status: 'pending' }],
    ['tool.progress', { toolCallId: 'c1', status: 'pending', inputDelta: '{"path":"a.txt",' }],
    ['tool.progress', { toolCallId: 'c1', status: 'pending', inputDelta: '"content":"hi"}' }],
    ['tool.progress', { toolCallId: 'c1', status: 'pending', input: { path: 'a.txt', content: 'hi' } }],
    ['tool.completed', { toolCallId: 'c1', status: 'completed', output: 'written' }],
  ];
  return payloads.map(([kind, payload], i) => ({
    deliverySeq: i + 1,
    event: { ...base, eventId: `e${i + 1}`, seq: i + 1, kind, payload } as CanonicalEvent,
  }));
}
