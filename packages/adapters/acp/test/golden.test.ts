import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatIssues, parseCanonicalEvent } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { acpTranslator } from '../src';
import { envelope, readJsonl, records, translateAll } from './trace';

const FIXTURES = join(import.meta.dirname, '__fixtures__');
const traces = readdirSync(FIXTURES).filter((f) => f.endsWith('.jsonl') && !f.endsWith('.expected.jsonl'));

describe.each(traces)('ACP golden trace %s', (file) => {
  const expectedPath = join(FIXTURES, file.replace(/\.jsonl$/, '.expected.jsonl'));
  const { events } = translateAll(acpTranslator, records(readJsonl(join(FIXTURES, file))));
  const canonical = envelope(events);

  it('matches the committed canonical sequence', () => {
    const actual = `${canonical.map((e) => JSON.stringify(e)).join('\n')}\n`;
    if (process.env.UPDATE_GOLDEN === '1' || !existsSync(expectedPath)) writeFileSync(expectedPath, actual);
    expect(actual).toBe(readFileSync(expectedPath, 'utf8'));
  });

  it('every expected event validates against the contract schema bundle', () => {
    for (const line of readFileSync(expectedPath, 'utf8').split('\n').filter(Boolean)) {
      const parsed = parseCanonicalEvent(JSON.parse(line));
      if (!parsed.ok) throw new Error(`${line.slice(0, 120)}\n${formatIssues(parsed.errors)}`);
    }
  });

  it('re-translating gives the same events (stable keys, no needless revisions)', () => {
    const again = translateAll(acpTranslator, records(readJsonl(join(FIXTURES, file))));
    expect(envelope(again.events)).toEqual(canonical);
    const seen = new Map<string, string>();
    for (const { event } of events) {
      const body = JSON.stringify(event.draft);
      expect(seen.get(event.key), `key ${event.key} repeated with the same content`).not.toBe(body);
      seen.set(event.key, body);
    }
  });

  it('produces the turn skeleton, the tool and the approval, without warnings', () => {
    const kinds = canonical.map((e) => e.kind);
    expect(kinds).not.toContain('harness.warning');
    expect(kinds).toContain('session.started');
    expect(kinds.filter((k) => k === 'turn.started')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'turn.completed')).toHaveLength(1);
    expect(kinds.at(-1)).toBe('turn.completed');
    expect(kinds).toContain('tool.started');
    expect(kinds).toContain('tool.completed');
    expect(kinds).toContain('reasoning.completed');
    expect(kinds).toContain('approval.requested');
    // Only the wire trace holds our answer to the permission request.
    if (file.includes('.wire.')) {
      expect(kinds.indexOf('approval.requested')).toBeLessThan(kinds.indexOf('approval.resolved'));
    }
    const texts = canonical.flatMap((e) =>
      e.kind === 'message.completed' && e.payload.role === 'assistant' ? [e.payload.text] : [],
    );
    expect(texts.at(-1)).toContain('Done: hello.txt was written.');
  });
});
