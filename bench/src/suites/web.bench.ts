/**
 * The web timeline on a 20,000-event thread, in headless Debian Chromium: time until the last message is
 * painted, frame time while scrolling, and JS heap after opening, next to the same events rendered as one
 * plain preformatted text block in the same browser and run (the baseline).
 */
import type { StreamEvent } from '@agentlane/contract';
import type { Page } from 'playwright-core';
import { chromiumMissing, launch } from '../../../packages/web/test/e2e/helpers/browser';
import { buildOnce } from '../../../packages/web/test/e2e/helpers/build';
import { FakeServer } from '../../../packages/web/test/e2e/helpers/fake-server';
import { FrameWriter } from '../../../packages/web/test/e2e/helpers/frames';
import type { BenchResult } from '../types';

const EVENTS = 20_000;
const END_MARKER = 'END-OF-THREAD';

/** 20,000 events: turns of a prompt, a streamed answer, a tool call, usage. */
export function bigThread(threadId: string): StreamEvent[] {
  const w = new FrameWriter(threadId);
  let turn = 0;
  while (w.deliverySeq < EVENTS - 120) {
    turn += 1;
    w.turnId = `turn-${turn}`;
    w.emit({
      kind: 'turn.started',
      payload: { prompt: `Question number ${turn}: what changed in module ${turn}?` },
    });
    w.emit({
      kind: 'tool.started',
      payload: {
        toolCallId: `t${turn}`,
        name: 'read',
        kind: 'read',
        input: { path: `src/m${turn}.ts` },
        status: 'running',
      },
    });
    w.emit({
      kind: 'tool.completed',
      payload: { toolCallId: `t${turn}`, status: 'completed', output: 'ok' },
    });
    const text = `In module ${turn}, the **parser** now handles \`edge cases\` and the tests pass. `.repeat(
      12,
    );
    w.streamText(`m${turn}`, text, 8);
    w.emit({ kind: 'message.completed', payload: { messageId: `m${turn}`, role: 'assistant', text } });
    w.emit({ kind: 'usage.updated', payload: { scope: 'turn', inputTokens: 1000, outputTokens: 200 } });
    w.emit({ kind: 'turn.completed', payload: { stopReason: 'end_turn' } });
  }
  w.turnId = 'turn-last';
  w.emit({ kind: 'turn.started', payload: { prompt: 'Last one' } });
  while (w.deliverySeq < EVENTS - 7) {
    w.emit({ kind: 'context.marker', payload: { markerKind: 'memory', phase: 'point', label: 'pad' } });
  }
  w.streamText('m-last', `All done. ${END_MARKER}`, 4);
  w.canonicalized();
  return w.frames;
}

/** The baseline: every event's JSON appended as a line to one <pre>, batched per animation frame. */
const BASELINE_HTML = `<!doctype html><html><head><meta charset="utf-8"><title>baseline</title>
<style>html,body{margin:0;height:100%}#log{height:100vh;overflow:auto;margin:0}</style></head>
<body><pre id="log"></pre><script>
const pre = document.getElementById('log');
const lines = []; let scheduled = false;
const source = new EventSource('/api/harness/threads/th-bench/events');
source.onmessage = (m) => {
  lines.push(m.data);
  if (!scheduled) { scheduled = true; requestAnimationFrame(() => { scheduled = false; pre.textContent = lines.join('\\n'); pre.scrollTop = pre.scrollHeight; }); }
};
</script></body></html>`;

async function heapBytes(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  await cdp.detach();
  return usedSize;
}

// In-page code is passed as source text: this file is type-checked without the DOM library.
const PAINTED_AT = 'new Promise((r) => requestAnimationFrame(() => r(performance.now())))';

/** Milliseconds from navigation until the marker text is in the DOM and a frame has been painted. */
async function timeToLastPaint(page: Page, url: string, marker: string): Promise<number> {
  await page.goto(url);
  await page.waitForFunction(`document.body.textContent.includes(${JSON.stringify(marker)})`, undefined, {
    timeout: 240_000,
    polling: 50,
  });
  return page.evaluate<number>(PAINTED_AT);
}

interface ScrollFigures {
  mean: number;
  p50: number;
  p95: number;
  /** Main-thread CPU time per frame (thread ticks): less sensitive to a busy machine than wall time. */
  cpuPerFrame: number;
}

export const SCROLL_FRAMES = 120;

/**
 * Scrolls the given element upwards from the bottom, 300 px per frame, and reports frame times and the
 * main thread's CPU time per frame.
 */
export async function scrollFrames(page: Page, selector: string): Promise<ScrollFigures> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
  const threadTime = async () =>
    (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime')?.value ?? 0;
  const before = await threadTime();
  const frames = await page.evaluate<{ mean: number; p50: number; p95: number }>(`(async () => {
    const el = document.querySelector(${JSON.stringify(selector)});
    el.scrollTop = el.scrollHeight;
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    await frame();
    const times = [];
    let last = await frame();
    for (let i = 0; i < ${SCROLL_FRAMES}; i++) {
      el.scrollTop = Math.max(0, el.scrollTop - 300);
      const now = await frame();
      times.push(now - last);
      last = now;
    }
    times.sort((a, b) => a - b);
    return {
      mean: times.reduce((a, b) => a + b, 0) / times.length,
      p50: times[Math.floor(times.length * 0.5)],
      p95: times[Math.floor(times.length * 0.95)],
    };
  })()`);
  const cpuPerFrame = (((await threadTime()) - before) * 1000) / (SCROLL_FRAMES + 2);
  await cdp.detach();
  return { ...frames, cpuPerFrame };
}

export async function run(): Promise<BenchResult[]> {
  if (chromiumMissing()) return [];
  // AGENTLANE_BENCH_WEB_DIST measures another build of the UI (say, one from an earlier commit) in place.
  const server = new FakeServer(process.env['AGENTLANE_BENCH_WEB_DIST'] ?? (await buildOnce()));
  server.addThread('th-bench', 'Bench', bigThread('th-bench'));
  server.pages.set('/baseline.html', BASELINE_HTML);
  await server.start();
  const browser = await launch();
  try {
    const measure = async (url: string, scrollSelector: string, marker: string) => {
      const page = await browser.context.newPage();
      const paintMs = await timeToLastPaint(page, url, marker);
      const heap = await heapBytes(page);
      const frames = await scrollFrames(page, scrollSelector);
      // The same rows again: what scrolling back over a part of the thread already seen costs.
      const again = await scrollFrames(page, scrollSelector);
      await page.close();
      return { paintMs, heap, frames, again };
    };
    // Warm the browser's caches for both pages, then measure.
    const ui = await measure(`${server.url}/#/t/th-bench`, '.timeline', END_MARKER);
    // The baseline shows raw frames, where the marker is split across deltas: its last frame ends it.
    const base = await measure(`${server.url}/baseline.html`, '#log', 'run.canonicalized');
    const extra = `${EVENTS} events; baseline: one <pre> of the same events`;
    return [
      {
        name: 'web: 20k-event thread, time to last message painted',
        unit: 'ms',
        value: Math.round(ui.paintMs),
        ratio: base.paintMs / ui.paintMs,
        extra: `${extra} (${Math.round(base.paintMs)} ms)`,
      },
      {
        name: 'web: 20k-event thread, scroll frame time p95',
        unit: 'ms',
        value: Math.round(ui.frames.p95 * 10) / 10,
        ratio: base.frames.p95 / ui.frames.p95,
        extra: `p50 ${ui.frames.p50.toFixed(1)} ms, mean ${ui.frames.mean.toFixed(1)} ms; baseline p95 ${base.frames.p95.toFixed(1)} ms, p50 ${base.frames.p50.toFixed(1)} ms (first pass over rows never mounted)`,
      },
      {
        name: 'web: 20k-event thread, scroll main-thread CPU per frame',
        unit: 'ms',
        value: Math.round(ui.frames.cpuPerFrame * 10) / 10,
        ratio: base.frames.cpuPerFrame / ui.frames.cpuPerFrame,
        extra: `baseline ${base.frames.cpuPerFrame.toFixed(1)} ms (thread CPU time, first pass)`,
      },
      {
        name: 'web: 20k-event thread, scroll again frame time p95',
        unit: 'ms',
        value: Math.round(ui.again.p95 * 10) / 10,
        ratio: base.again.p95 / ui.again.p95,
        extra: `second pass over the same rows: p50 ${ui.again.p50.toFixed(1)} ms, CPU ${ui.again.cpuPerFrame.toFixed(1)} ms/frame; baseline p95 ${base.again.p95.toFixed(1)} ms, CPU ${base.again.cpuPerFrame.toFixed(1)} ms/frame`,
      },
      {
        name: 'web: 20k-event thread, JS heap after opening',
        unit: 'MB',
        value: Math.round(ui.heap / 1e5) / 10,
        ratio: base.heap / ui.heap,
        extra: `baseline ${(base.heap / 1e6).toFixed(1)} MB`,
      },
    ];
  } finally {
    await browser.close();
    await server.stop();
  }
}
