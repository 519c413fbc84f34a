import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatIssues, parseCanonicalEvent, SCHEMA_VERSION } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { openCodeTranslator } from '../src';
import { readJsonl, records, translateAll } from './trace';

const FIXTURES = join(import.meta.dirname, '__fixtures__');
const EXPECTED = join(FIXTURES, 'opencode.expected.json');

describe('OpenCode golden trace', () => {
  const { events } = translateAll(openCodeTranslator, records(readJsonl(join(FIXTURES, 'opencode.jsonl'))));

  it('matches the committed canonical sequence', async () => {
    const actual = events.map((e) => ({
      key: e.key,
      kind: e.draft.kind,
      payload: e.draft.payload,
      ...(e.identity ? { identity: e.identity } : {}),
      ...(e.namespace ? { namespace: e.namespace } : {}),
    }));
    if (process.env.UPDATE_GOLDEN === '1' || !existsSync(EXPECTED)) {
      writeFileSync(EXPECTED, `${JSON.stringify(actual, null, 2)}\n`);
    }
    await expect(JSON.stringify(actual, null, 2)).toBe(
      JSON.stringify((await import(EXPECTED, { with: { type: 'json' } })).default, null, 2),
    );
  });

  it('every event, wrapped in the envelope the lane adds, validates against the contract schema bundle', () => {
    events.forEach((e, i) => {
      const event = {
        schemaVersion: SCHEMA_VERSION,
        eventId: `ev_${i}`,
        seq: i + 1,
        runId: 'run_golden',
        threadId: 'thr_golden',
        turnId: 'turn_golden',
        ts: new Date(Date.UTC(2026, 0, 1)).toISOString(),
        identity: { provider: 'opencode', ...e.identity },
        kind: e.draft.kind,
        payload: e.draft.payload,
      };
      const parsed = parseCanonicalEvent(event);
      if (!parsed.ok) throw new Error(`${e.key}\n${formatIssues(parsed.errors)}`);
    });
  });

  it('keys are unique per distinct content (a repeated key is a revision, never a duplicate)', () => {
    const seen = new Map<string, string>();
    for (const e of events) {
      const body = JSON.stringify(e.draft);
      expect(seen.get(e.key)).not.toBe(body);
      seen.set(e.key, body);
    }
  });

  it('produces the turn skeleton and the write tool', () => {
    const kinds = events.map((e) => e.draft.kind);
    expect(kinds[0]).toBe('session.started');
    expect(kinds.filter((k) => k === 'turn.completed')).toHaveLength(1);
    expect(kinds.lastIndexOf('message.completed')).toBeLessThan(kinds.indexOf('turn.completed'));
    expect(kinds.indexOf('turn.started')).toBeLessThan(kinds.indexOf('message.started'));
    const tool = events.find((e) => e.draft.kind === 'tool.completed');
    expect(tool?.draft.payload).toMatchObject({ toolCallId: 'call_1', status: 'completed' });
    const file = events.find((e) => e.draft.kind === 'file.changed');
    expect(file?.draft.payload).toMatchObject({ path: 'hello.txt', change: 'created', toolCallId: 'call_1' });
    expect(kinds).not.toContain('harness.warning');
  });
});
