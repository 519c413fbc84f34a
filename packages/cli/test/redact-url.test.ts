import { describe, expect, it } from 'vitest';
import { printable, redactUrl } from '../src/cli-error';

// A probe's `--db postgres://…/db?user=postgres&password=…` was printed whole in the "listening on" line and in
// the "cannot reach the database" error, and an OTLP endpoint's `?token=` in the "traces go to" line.
describe('credentials in printed URLs', () => {
  it('masks the password and credential-named query values', () => {
    expect(redactUrl('postgres://u:pw-0001@h/db?sslmode=require&password=pw-0002')).toBe(
      'postgres://u:***@h/db?sslmode=require&password=***',
    );
    expect(redactUrl('http://127.0.0.1:8012/v1/traces?token=OtelQs-5678')).toBe(
      'http://127.0.0.1:8012/v1/traces?token=***',
    );
    expect(printable('cannot reach postgres://h/db?user=app&password=pw-0003 (ECONNREFUSED)')).toBe(
      'cannot reach postgres://h/db?user=app&password=*** (ECONNREFUSED)',
    );
    expect(redactUrl('postgres://h/db?user=app')).toBe('postgres://h/db?user=app');
  });
});
