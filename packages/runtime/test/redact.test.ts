import { describe, expect, it } from 'vitest';
import { Redactor } from '../src/redact';

const KEY = 'sk-test-secret-123';

describe('Redactor', () => {
  const r = new Redactor([KEY, 'k']);

  it('replaces the configured keys wherever they are, never a short placeholder', () => {
    expect(r.text(`a ${KEY} b ${KEY}`)).toBe('a [REDACTED] b [REDACTED]');
    expect(r.text('keep the k')).toBe('keep the k');
  });

  it('in error text, also credentials in header form, whatever key they carry', () => {
    const cases: [string, string][] = [
      ['{"authorization":"Bearer other-token-1"}', '{"authorization":"[REDACTED]"}'],
      ['{\\"authorization\\":\\"Bearer other\\"}', '{\\"authorization\\":\\"[REDACTED]\\"}'],
      ['Authorization: Bearer abc.def', 'Authorization: [REDACTED]'],
      ['x-api-key: sk-ant-zzz, next', 'x-api-key: [REDACTED], next'],
      ["'api-key': 'azure-key'", "'api-key': '[REDACTED]'"],
      ['x-goog-api-key=AIzaXYZ&alt=sse', 'x-goog-api-key=[REDACTED]&alt=sse'],
      ['rejected token Bearer abc123==', 'rejected token Bearer [REDACTED]'],
      ['authorization failed: invalid request', 'authorization failed: invalid request'],
    ];
    for (const [input, want] of cases) expect(r.error(input)).toBe(want);
  });

  it('walks JSON values (keys included) and leaves an untouched value as it was', () => {
    const v = { a: [KEY, { [KEY]: 1 }], b: 'x' };
    expect(r.json(v)).toEqual({ a: ['[REDACTED]', { '[REDACTED]': 1 }], b: 'x' });
    const clean = { a: ['x'] };
    expect(r.json(clean)).toBe(clean);
  });
});
