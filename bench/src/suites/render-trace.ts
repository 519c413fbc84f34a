import type { Page } from 'playwright-core';

/**
 * Trace events of the renderer's main thread that are the browser's rendering work: a frame's lifecycle
 * update, and style and layout wherever they run (a script reading a size or a scroll offset forces them
 * early, inside its own task), ResizeObserver callbacks, the hover hit test after a scroll.
 */
const RENDERING = new Set([
  'WebFrameWidgetImpl::UpdateLifecycle',
  'LocalFrameView::NotifyResizeObservers',
  'LayoutView::HitTest',
  'UpdateLayoutTree',
  'Layout',
  'PrePaint',
  'Paint',
]);

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

/**
 * Runs `work` under a Chromium performance trace (CDP `Tracing`) and returns the renderer main thread's CPU
 * time per frame spent in rendering (style, layout, pre-paint and paint, ResizeObserver callbacks, and the
 * hover hit test that forces them after a scroll), and in all of its tasks. Where a scroll frame's time
 * goes, which frame times alone do not say.
 */
export async function renderingCpu<T>(
  page: Page,
  frames: number,
  work: () => Promise<T>,
): Promise<{ result: T; renderingMs: number; tasksMs: number }> {
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...(e.value as unknown as TraceEvent[])));
  const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', {
    categories: 'devtools.timeline,blink,disabled-by-default-devtools.timeline',
    transferMode: 'ReportEvents',
  });
  const result = await work();
  await cdp.send('Tracing.end');
  await complete;
  await cdp.detach();
  const main = new Set(
    events
      .filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const onMain = events
    .filter((e) => e.ph === 'X' && main.has(`${e.pid}:${e.tid}`))
    .sort((a, b) => a.ts - b.ts);
  // Outermost events only: a ResizeObserver callback or a hit test may run inside a lifecycle update.
  const outermost = (keep: (e: TraceEvent) => boolean) => {
    let end = Number.NEGATIVE_INFINITY;
    let sum = 0;
    for (const e of onMain) {
      if (!keep(e) || e.ts < end) continue;
      end = e.ts + (e.dur ?? 0);
      sum += e.tdur ?? 0;
    }
    return sum / 1000 / frames;
  };
  return {
    result,
    renderingMs: outermost((e) => RENDERING.has(e.name)),
    tasksMs: outermost((e) => e.name === 'RunTask'),
  };
}
