import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/harness';
import { SseReader } from './support/sse-reader';

let t: TestServer;
beforeAll(async () => {
  const web = mkdtempSync(join(tmpdir(), 'agentlane-web-'));
  mkdirSync(join(web, 'assets'));
  writeFileSync(join(web, 'index.html'), '<!doctype html><title>agentlane</title>');
  writeFileSync(join(web, 'assets', 'app.js'), 'console.log(1)');
  t = await startTestServer({ webRoot: web, heartbeatMs: 100 });
});
afterAll(async () => {
  await t.close();
});

describe('web UI and heartbeats', () => {
  it('serves the built web UI at / with index.html for client-side routes, JSON 404 under the API', async () => {
    const index = await fetch(`${t.url}/`);
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('<title>agentlane</title>');
    const asset = await fetch(`${t.url}/assets/app.js`);
    expect(asset.headers.get('content-type')).toContain('javascript');
    const route = await fetch(`${t.url}/threads/abc`);
    expect(await route.text()).toContain('<title>agentlane</title>');
    const api = await fetch(`${t.api}/nope`);
    expect(api.status).toBe(404);
    expect((await api.json()) as object).toMatchObject({ error: { code: 'not_found' } });
  });

  it('serves the web UI under a content security policy, and artifacts sandboxed', async () => {
    const index = await fetch(`${t.url}/`);
    const csp = index.headers.get('content-security-policy') ?? '';
    // Scripts from the bundle only; images never from another host (an agent's markdown image cannot send
    // data away); no other site may frame the page.
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("img-src 'self' data: blob:");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    expect(index.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(index.headers.get('referrer-policy')).toBe('no-referrer');
    // An HTML artifact an engine wrote, opened in a tab: an opaque origin with scripts off, not the web UI's.
    const html = '<script>fetch("/api/harness/sessions",{method:"POST"})</script>';
    const ref = await t.store.putArtifact(new TextEncoder().encode(html), 'text/html');
    const artifact = await fetch(`${t.api}/artifacts/${ref.id}`);
    expect(artifact.status).toBe(200);
    expect(artifact.headers.get('content-type')).toContain('text/html');
    expect(artifact.headers.get('content-security-policy')).toMatch(/^sandbox; default-src 'none'/);
    expect(artifact.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await artifact.text()).toBe(html);
    // API answers carry the same defaults.
    const health = await fetch(`${t.api}/health`);
    expect(health.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('sends heartbeat comments on an idle stream', async () => {
    const id = await t.createSession();
    const reader = new SseReader(`${t.api}/threads/${id}/events`);
    await reader.waitFor((r) => r.comments >= 2, 5000);
    expect(reader.events.map((e) => e.type)).toEqual(['stream.opened']);
    reader.close();
  });
});
