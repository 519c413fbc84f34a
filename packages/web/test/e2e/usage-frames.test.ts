import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { AuditableCall, StreamEvent } from '@agentlane/contract';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, type Browser, chromiumMissing, launch } from './helpers/browser';
import { buildOnce } from './helpers/build';
import { type BuiltinServe, listOrEcho, promptFromPage, startBuiltinServe } from './helpers/builtin-serve';
import { FakeServer } from './helpers/fake-server';
import { shootBothThemes } from './helpers/themes';
import { usageThread, usageThreadFrames } from './helpers/usage-thread';

/**
 * The Usage inspector (recharts: tokens and cost per turn, tokens per model, context window), the Raw
 * frames inspector opened from a row (the event's identity and the native frames with their raw sidecar,
 * from GET /sessions/:id/runs/:runId/frames) and a file's diff history opened from its row: on a scripted
 * thread served by the fake server, on a live built-in engine thread against `agentlane serve`, and on
 * that thread as recorded (`RECORD_WEB_FIXTURES=1` writes it again).
 */
const skip = chromiumMissing();
let browser: Browser;
let fake: FakeServer;
let serve: BuiltinServe;

interface Recorded {
  threadId: string;
  events: StreamEvent[];
  audit: { calls: AuditableCall[]; nextCursor: null };
  frames: Record<string, { frames: unknown[]; nextAfter: null }>;
}
const fixtureUrl = new URL('./fixtures/builtin-usage-frames.json', import.meta.url);
const recorded = (
  existsSync(fixtureUrl) ? JSON.parse(readFileSync(fixtureUrl, 'utf8')) : undefined
) as Recorded;

beforeAll(async () => {
  if (skip) return;
  const webRoot = await buildOnce();
  fake = new FakeServer(webRoot);
  fake.addThread('th-use', 'Usage and frames', usageThread('th-use'));
  fake.replies.set('/sessions/th-use/runs/run-1/frames', usageThreadFrames());
  if (recorded) {
    fake.addThread(recorded.threadId, 'Recorded built-in thread', recorded.events);
    fake.replies.set(`/sessions/${recorded.threadId}/audit`, recorded.audit);
    for (const [runId, reply] of Object.entries(recorded.frames))
      fake.replies.set(`/sessions/${recorded.threadId}/runs/${runId}/frames`, reply);
  }
  await fake.start();
  serve = await startBuiltinServe(webRoot, listOrEcho);
  browser = await launch();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await fake?.stop();
  await serve?.stop();
});

const cells = (page: Page, model: string) =>
  page.locator(`[data-testid="usage-models"] tr[data-model="${model}"] td`).allTextContents();

describe.skipIf(skip)('usage and raw frames inspectors', { timeout: 150_000 }, () => {
  it('usage charts, raw frames from a row, a file’s diff history (scripted thread)', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${fake.url}/#/t/th-use`);
    await page.locator('[data-connection="live"]').waitFor();
    await page.getByRole('button', { name: 'Inspect', exact: true }).click();
    await page.getByRole('tab', { name: 'Usage' }).click();

    // Per turn: the turn totals (5,000 in over two turns); per model: the steps (big-model in both turns).
    const usage = page.locator('section.usage-inspector');
    await expect.poll(() => usage.locator('[data-testid="usage-total"]').textContent()).toContain('2 turns');
    expect(await usage.locator('[data-testid="usage-total"]').textContent()).toContain('5,000 in');
    expect(await usage.locator('[data-testid="usage-total"]').textContent()).toContain('0.0390 USD');
    for (const chart of ['tokens-per-turn', 'cost-per-turn', 'tokens-per-model', 'context-window'])
      await usage.locator(`figure[data-chart="${chart}"] svg`).first().waitFor();
    await expect
      .poll(() => usage.locator('figure[data-chart="tokens-per-turn"] .recharts-bar-rectangle').count())
      .toBe(4);
    expect(
      await usage.locator('figure[data-chart="context-window"] .recharts-line-dots circle').count(),
    ).toBe(2);
    expect(await cells(page, 'big-model')).toEqual(['4,400', '530', '0', '0', '—']);
    expect(await cells(page, 'small-model')).toEqual(['600', '80', '0', '0', '—']);
    // The turns' cost was reported for the turn, not per model.
    expect(await cells(page, 'unattributed')).toEqual(['0', '0', '0', '0', '0.0390 USD']);
    await usage.getByText('Per turn', { exact: true }).click();
    expect(await usage.locator('[data-testid="usage-turns"] tbody tr').allTextContents()).toEqual([
      '12,40030000.0210 USD24,000 / 200,000 (12%)',
      '22,60031000.0180 USD52,000 / 200,000 (26%)',
    ]);
    await usage.getByText('Per turn', { exact: true }).click();
    expect(await axeViolations(page, 'aside.inspector')).toEqual([]);
    // From the top, and no chart tooltip under the pointer.
    await page.locator('aside.inspector').evaluate((el) => {
      el.scrollTop = 0;
    });
    await page.mouse.move(0, 0);
    await shootBothThemes(page, 'inspector-usage', page.locator('aside.inspector'));

    // Raw frames from a row: the first answer names its native message id; the frame carrying it is shown.
    const answer = page.locator('.row', { hasText: 'Fixed the sign.' });
    await answer.hover();
    await answer.getByRole('button', { name: 'Inspect assistant message' }).click();
    expect(await page.getByRole('tab', { name: 'Raw frames' }).getAttribute('aria-selected')).toBe('true');
    const frames = page.locator('section.frames-inspector');
    expect(await frames.locator('[data-testid="event-identity"]').textContent()).toContain('msg_native_0');
    const match = frames.locator('[data-testid="frames-match"]');
    await expect.poll(() => match.getAttribute('data-matched-by')).toBe('identity');
    expect(await frames.locator('article.native-frame').count()).toBe(1);
    expect(await frames.locator('article.native-frame').getAttribute('data-native-seq')).toBe('2');
    expect(await frames.locator('[data-testid="raw-text"]').textContent()).toContain(
      '"messageId":"msg_native_0"',
    );
    // Its two events (started, completed) can each be picked; every frame of the run is one click away.
    expect(await frames.getByLabel('Event').locator('option').count()).toBe(2);
    await frames.getByLabel('Every frame of the run').check();
    expect(await frames.locator('article.native-frame').count()).toBe(3);
    await frames.getByLabel('Every frame of the run').uncheck();
    expect(await axeViolations(page, 'aside.inspector')).toEqual([]);
    await shootBothThemes(page, 'inspector-raw-frames', page.locator('aside.inspector'));

    // A file change links to the file's diff history: both changes of src/add.ts, each with its diff.
    const file = page.locator('.row', { has: page.locator('[data-surface="file"]') }).first();
    await file.getByRole('button', { name: 'Diff history of src/add.ts' }).click();
    const history = page.locator('section.file-history');
    await expect
      .poll(() => history.locator('[data-testid="file-history-count"]').textContent())
      .toBe('2 changes of src/add.ts');
    expect(await history.locator('.file-history-list > li').count()).toBe(2);
    expect(await history.locator('.file-history-list > li').nth(1).textContent()).toContain('return b + a;');
    expect(await axeViolations(page, 'aside.inspector')).toEqual([]);
    await shootBothThemes(page, 'inspector-file-history', page.locator('aside.inspector'));
    await page.close();
  });

  it('on a live built-in thread: usage per model matches the ledger, a tool row’s native frames', async () => {
    const threadId = await serve.createThread('Live usage');
    const page = await browser.context.newPage();
    await promptFromPage(page, serve, threadId, ['hello there', 'list the folder']);
    const audit = (await (await fetch(serve.api(`/sessions/${threadId}/audit?limit=1000`))).json()) as {
      calls: AuditableCall[];
    };
    const framesOf = async (runId: string) =>
      (await (await fetch(serve.api(`/sessions/${threadId}/runs/${runId}/frames?limit=1000`))).json()) as {
        frames: unknown[];
      };
    await checkBuiltinThread(page, audit.calls, framesOf);
    await page.close();
    if (process.env['RECORD_WEB_FIXTURES'] === '1') await record(threadId, audit.calls, framesOf);
  });

  it('on a recorded built-in thread (fixtures/builtin-usage-frames.json)', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${fake.url}/#/t/${recorded.threadId}`);
    await page.locator('[data-connection="live"]').waitFor();
    await checkBuiltinThread(page, recorded.audit.calls, async (runId) => recorded.frames[runId]!);
    await page.close();
  });
});

/**
 * A built-in engine thread of two turns (an echo, then a list_files call): the Usage inspector's numbers
 * per model are the ledger's, and the tool row's native frames are the ones naming its tool call id.
 */
async function checkBuiltinThread(
  page: Page,
  calls: AuditableCall[],
  framesOf: (runId: string) => Promise<{ frames: unknown[] }>,
): Promise<void> {
  await page.locator('.message.assistant', { hasText: 'The folder has one file.' }).waitFor();
  await page.getByRole('button', { name: 'Inspect', exact: true }).click();
  await page.getByRole('tab', { name: 'Usage' }).click();
  const usage = page.locator('section.usage-inspector');
  await expect.poll(() => usage.locator('[data-testid="usage-total"]').textContent()).toContain('2 turns');
  await usage.locator('figure[data-chart="tokens-per-turn"] .recharts-bar-rectangle').first().waitFor();

  // The model's input tokens in the chart's table are the ledger's model calls' input tokens.
  const models = calls.filter((c) => c.call_class === 'model');
  const input = models.reduce(
    (s, c) => s + ((c.payload as { usage?: { inputTokens?: number } }).usage?.inputTokens ?? 0),
    0,
  );
  expect(input).toBeGreaterThan(0);
  const model = models[0]!.model!;
  await expect.poll(async () => (await cells(page, model))[0]).toBe(input.toLocaleString('en-US'));
  expect(await axeViolations(page, 'aside.inspector')).toEqual([]);

  // The tool row's native frames: the frames naming its tool call id, from the run's source lane.
  const tool = page.locator('.row', { has: page.locator('[data-surface="tool"]') }).first();
  await tool.hover();
  await tool.locator('button.row-inspect').click();
  const frames = page.locator('section.frames-inspector');
  const match = frames.locator('[data-testid="frames-match"]');
  await expect.poll(() => match.getAttribute('data-matched-by')).toBe('payload ids');
  const shown = await frames.locator('article.native-frame').count();
  expect(shown).toBeGreaterThan(0);
  const callId = /\((call_[^,)]+)/.exec((await match.textContent()) ?? '')?.[1];
  expect(callId).toBeDefined();
  expect(await frames.locator('article.native-frame pre.frame-json').first().textContent()).toContain(callId);

  // Every frame of the run, as the route lists them.
  const runId = (await frames.locator('[data-testid="event-envelope"] dd').nth(2).textContent())!;
  const route = await framesOf(runId);
  await frames.getByLabel('Every frame of the run').check();
  await expect.poll(() => frames.locator('article.native-frame').count()).toBe(route.frames.length);
  expect(route.frames.length).toBeGreaterThan(shown);
  expect(await axeViolations(page, 'aside.inspector')).toEqual([]);
}

/**
 * RECORD_WEB_FIXTURES=1 writes the live thread as fixtures/builtin-usage-frames.json: its StreamEvents as
 * a fresh page received them (the page's own cache, after the runs settled), its ledger rows and every
 * run's frames route reply.
 */
async function record(
  threadId: string,
  calls: AuditableCall[],
  framesOf: (runId: string) => Promise<{ frames: unknown[] }>,
): Promise<void> {
  const page = await browser.context.newPage();
  await page.goto(`${serve.url}/#/t/${threadId}`);
  await page.locator('.message.assistant', { hasText: 'The folder has one file.' }).waitFor();
  await page.waitForTimeout(1500);
  const cached = await page.evaluate((id) => sessionStorage.getItem(`agentlane.thread.${id}`), threadId);
  await page.close();
  const events = (JSON.parse(cached!) as StreamEvent[]).filter((e) => e.type !== 'stream.opened');
  const runIds = [...new Set(events.flatMap((e) => ('event' in e ? [e.event.runId] : [])))];
  const frames: Record<string, unknown> = {};
  for (const runId of runIds) frames[runId] = await framesOf(runId);
  writeFileSync(
    fixtureUrl,
    `${JSON.stringify({ threadId, events, audit: { calls, nextCursor: null }, frames }, null, 1)}\n`,
  );
}
