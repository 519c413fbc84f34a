import { type AuditableCall, parseAuditableCall, type StreamEvent } from '@agentlane/contract';
import { expect } from 'vitest';
import { post, ThreadStream } from '../opencode-stack';

/** A stream event that carries a canonical event. */
export type Canonical = Extract<StreamEvent, { event: unknown }>;

/** A ThreadStream condition: the run has been canonicalized. */
export const done = (runId: string) => (events: StreamEvent[]) =>
  events.some((e) => e.type === 'run.canonicalized' && e.runId === runId);

/** Answers an approval through the API with the option `optionId`; the API accepts it (202). */
export async function answerApproval(
  api: string,
  runId: string,
  approvalId: string | undefined,
  optionId: string | undefined,
): Promise<void> {
  const answered = await post(`${api}/runs/${runId}/approvals/${approvalId}`, {
    outcome: 'selected',
    optionId,
  });
  expect(answered.status).toBe(202);
}

/** A session's ledger rows through GET /sessions/:id/audit (200), each a valid AuditableCall. */
export async function readAudit(
  api: string,
  threadId: string,
): Promise<{ calls: AuditableCall[]; nextCursor: string | null }> {
  const res = await fetch(`${api}/sessions/${threadId}/audit`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { calls: AuditableCall[]; nextCursor: string | null };
  for (const call of body.calls) expect(parseAuditableCall(call).ok).toBe(true);
  return body;
}

/** The first approval request a thread's stream saw: its payload and its `allow_once` option. */
export function requestedApproval(stream: ThreadStream) {
  const asked = stream.events.find((e): e is Canonical => e.type === 'approval.requested' && 'event' in e);
  const payload = asked?.event.kind === 'approval.requested' ? asked.event.payload : null;
  return { payload, allowOnce: payload?.options.find((o) => o.kind === 'allow_once') };
}

const CANCEL_AFTER_DELTAS = 3;

/**
 * Once the run has streamed a few message deltas, cancels it through the API (202) and waits until it
 * settles. A few, not the first: in one loaded CI run the real Cline streamed a 400-chunk answer to its end
 * after a cancel sent on its first delta (not reproduced since); a few deltas in, the engine's turn is
 * surely under way, and the answers these tests stream are hundreds of chunks long.
 */
export async function cancelMidMessage(api: string, stream: ThreadStream, runId: string): Promise<void> {
  await stream.waitFor(
    (events) =>
      events.filter((e) => 'event' in e && e.event.runId === runId && e.type === 'message.delta').length >=
      CANCEL_AFTER_DELTAS,
  );
  expect((await post(`${api}/runs/${runId}/cancel`, {})).status).toBe(202);
  await stream.waitFor(done(runId));
  stream.close();
}

/** The event kinds of a turn whose file write waited for an approval, whatever the engine. */
export const APPROVED_WRITE_KINDS = [
  'tool.started',
  'approval.requested',
  'approval.resolved',
  'tool.completed',
  'file.changed',
  'usage.updated',
];

/** Each of `expected` is among `kinds` (the failure names the missing kind). */
export function expectKinds(kinds: string[], expected: string[]): void {
  for (const kind of expected) expect(kinds, kind).toContain(kind);
}

/**
 * Opens a session on `engine` through the API, runs one prompt to its canonicalization and returns the
 * answer's text (every message.delta of the run); the stream is closed by `cleanup`.
 */
export async function promptForText(
  api: string,
  options: { engine: string; workDir: string; prompt: string; timeoutMs: number },
  cleanup: (() => Promise<void> | void)[],
): Promise<string> {
  const session = await post(`${api}/sessions`, { engine: options.engine, workDir: options.workDir });
  expect(session.status, JSON.stringify(session.json)).toBe(201);
  const threadId = (session.json as { session: { id: string } }).session.id;
  const stream = new ThreadStream(`${api}/threads/${threadId}/events`);
  cleanup.push(() => stream.close());
  const created = await post(`${api}/threads/${threadId}/runs`, { prompt: options.prompt });
  const runId = (created.json as { run: { runId: string } }).run.runId;
  await stream.waitFor(done(runId), options.timeoutMs);
  return stream
    .canonical(runId)
    .flatMap((e) => (e.event.kind === 'message.delta' ? [e.event.payload.delta] : []))
    .join('');
}
