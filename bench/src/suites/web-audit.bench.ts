/**
 * The audit inspector on a thread with 5,000 ledger rows, in headless Debian Chromium: time from asking for
 * it (the Inspect click) to the first rows painted, and frame time while scrolling the rows, next to the
 * same rows as one plain HTML <table> (fetched from the same route, built with one innerHTML) in the same
 * browser and run (the baseline; its time runs from navigation, the page has nothing else to load). A
 * second scroll under a Chromium trace says how much of a frame is the browser's rendering work.
 */
import { readFileSync } from 'node:fs';
import type { AuditableCall } from '@agentlane/contract';
import type { Page } from 'playwright-core';
import { chromiumMissing, launch } from '../../../packages/web/test/e2e/helpers/browser';
import { buildOnce } from '../../../packages/web/test/e2e/helpers/build';
import { FakeServer } from '../../../packages/web/test/e2e/helpers/fake-server';
import { textOnlyThread } from '../../../packages/web/test/e2e/helpers/frames';
import type { BenchResult } from '../types';
import { renderingCpu } from './render-trace';
import { SCROLL_FRAMES, scrollFrames } from './web.bench';

const ROWS = 5000;

function ledger(): AuditableCall[] {
  const fixture = new URL('../../../packages/web/test/e2e/fixtures/builtin-inspectors.json', import.meta.url);
  const recorded = (JSON.parse(readFileSync(fixture, 'utf8')) as { audit: { calls: AuditableCall[] } }).audit
    .calls;
  return Array.from({ length: ROWS }, (_, i) => ({
    ...recorded[i % recorded.length]!,
    record_id: `01J${String(i).padStart(23, '0')}`,
    turn_id: `turn-${Math.floor(i / 6)}`,
  }));
}

/** The baseline: the same route's rows, every one a <tr> of the same columns, in a scrolling <div>. */
const BASELINE_HTML = `<!doctype html><html><head><meta charset="utf-8"><title>audit baseline</title>
<style>#wrap{height:420px;overflow:auto}td{padding:2px 6px;white-space:nowrap}</style></head><body>
<div id="wrap"><table><thead><tr><th>Class</th><th>Provider</th><th>Model</th><th>Status</th><th>Latency</th><th>Tokens</th><th>Stage</th></tr></thead><tbody id="rows"></tbody></table></div>
<script>
fetch('/api/harness/sessions/th-audit/audit?limit=1000').then((r) => r.json()).then(({ calls }) => {
  const esc = (s) => String(s ?? '').replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]);
  document.getElementById('rows').innerHTML = calls.map((c) => '<tr><td>' + [c.call_class, c.provider, c.model,
    c.status, c.latency_ms + ' ms', (c.payload.usage?.inputTokens ?? '') + ' / ' + (c.payload.usage?.outputTokens ?? ''),
    c.stage_id].map(esc).join('</td><td>') + '</td></tr>').join('');
  requestAnimationFrame(() => { window.firstRowsAt = performance.now(); });
});
</script></body></html>`;

// In-page code is passed as source text: this file is type-checked without the DOM library.
const FIRST_ROWS_AFTER_CLICK = `new Promise((resolve) => {
  const start = performance.now();
  document.querySelector('button[aria-expanded]').click();
  const poll = () => document.querySelector('.audit-body [role="row"]')
    ? requestAnimationFrame(() => resolve(performance.now() - start))
    : setTimeout(poll, 5);
  poll();
})`;

export async function run(): Promise<BenchResult[]> {
  if (chromiumMissing()) return [];
  const server = new FakeServer(process.env['AGENTLANE_BENCH_WEB_DIST'] ?? (await buildOnce()));
  server.addThread('th-audit', 'Audit bench', textOnlyThread('th-audit'));
  server.replies.set('/sessions/th-audit/audit', { calls: ledger(), nextCursor: null });
  server.pages.set('/audit-baseline.html', BASELINE_HTML);
  await server.start();
  const browser = await launch();
  try {
    // A traced run (the warm-up) says where a scroll frame's time goes; its frames are slowed by the trace.
    const scroll = async (page: Page, selector: string, traced: boolean) =>
      traced
        ? await renderingCpu(page, SCROLL_FRAMES, () => scrollFrames(page, selector))
        : { result: await scrollFrames(page, selector), renderingMs: 0, tasksMs: 0 };
    const ui = async (traced: boolean) => {
      const page = await browser.context.newPage();
      await page.goto(`${server.url}/#/t/th-audit`);
      await page.locator('[data-connection="live"]').waitFor();
      const firstMs = await page.evaluate<number>(FIRST_ROWS_AFTER_CLICK);
      await page.locator('[data-testid="audit-count"]', { hasText: `${ROWS} calls` }).waitFor();
      const { result: frames, ...trace } = await scroll(page, '.audit-body', traced);
      await page.close();
      return { firstMs, frames, trace };
    };
    const baseline = async (traced: boolean) => {
      const page = await browser.context.newPage();
      await page.goto(`${server.url}/audit-baseline.html`);
      await page.waitForFunction('window.firstRowsAt !== undefined', undefined, { timeout: 60_000 });
      const firstMs = await page.evaluate<number>('window.firstRowsAt');
      const { result: frames, ...trace } = await scroll(page, '#wrap', traced);
      await page.close();
      return { firstMs, frames, trace };
    };
    // One warm-up of each (caches, JIT), traced, then the measured pair.
    const ta = (await ui(true)).trace;
    const tb = (await baseline(true)).trace;
    const a = await ui(false);
    const b = await baseline(false);
    const extra = `${ROWS} ledger rows; baseline: a plain <table> of the same rows`;
    return [
      {
        name: 'web: audit inspector, 5,000 rows, time to first rows',
        unit: 'ms',
        value: Math.round(a.firstMs),
        ratio: b.firstMs / a.firstMs,
        extra: `${extra} (${Math.round(b.firstMs)} ms from navigation)`,
      },
      {
        name: 'web: audit inspector, 5,000 rows, scroll frame time p95',
        unit: 'ms',
        value: Math.round(a.frames.p95 * 10) / 10,
        ratio: b.frames.p95 / a.frames.p95,
        extra: `p50 ${a.frames.p50.toFixed(1)} ms, CPU ${a.frames.cpuPerFrame.toFixed(1)} ms/frame; baseline p95 ${b.frames.p95.toFixed(1)} ms, p50 ${b.frames.p50.toFixed(1)} ms, CPU ${b.frames.cpuPerFrame.toFixed(1)} ms/frame`,
      },
      {
        name: 'web: audit inspector, 5,000 rows, scroll rendering CPU per frame (trace)',
        unit: 'ms',
        value: Math.round(ta.renderingMs * 10) / 10,
        ratio: tb.renderingMs / ta.renderingMs,
        extra: `style, layout, paint, ResizeObserver, hover hit test (first scroll, traced); all main-thread tasks ${ta.tasksMs.toFixed(1)} ms/frame; baseline ${tb.renderingMs.toFixed(1)} and ${tb.tasksMs.toFixed(1)} ms/frame`,
      },
    ];
  } finally {
    await browser.close();
    await server.stop();
  }
}
