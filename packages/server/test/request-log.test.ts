import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactedUrl } from '../src/observability/request-log';
import { startTestServer, type TestServer } from './support/harness';

const lines: string[] = [];
let t: TestServer;
beforeAll(async () => {
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  t = await startTestServer({ loggerInstance: logger });
});
afterAll(async () => {
  await t.close();
});

describe('the request log', () => {
  it('never shows a credential a client put in the query string', async () => {
    await fetch(`${t.api}/sessions?access_token=SECRET-QUERY-TOKEN-1&limit=5`);
    await fetch(`${t.api}/threads/x/events?token=SECRET-QUERY-TOKEN-2`);
    const log = lines.join('');
    expect(log).toContain('"url":"/api/harness/sessions?access_token=[redacted]&limit=5"');
    expect(log).not.toContain('SECRET-QUERY-TOKEN');
  });

  it('redacts by parameter name, encoded names too, and leaves the rest', () => {
    expect(redactedUrl('/a?api_key=1&after=3&x')).toBe('/a?api_key=[redacted]&after=3&x');
    expect(redactedUrl('/a?%74oken=1')).toBe('/a?%74oken=[redacted]');
    expect(redactedUrl('/a?a=1;token=t&jwt=j&bearer=b&after=2')).toBe(
      '/a?a=1;token=[redacted]&jwt=[redacted]&bearer=[redacted]&after=2',
    );
    expect(redactedUrl('/a')).toBe('/a');
    expect(redactedUrl('/a?Authorization=Bearer%20x&q=hi')).toBe('/a?Authorization=[redacted]&q=hi');
  });
});
