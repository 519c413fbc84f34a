import { readFileSync } from 'node:fs';
import type { AuditableCall } from '@agentlane/contract';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, type Browser, chromiumMissing, launch } from './helpers/browser';
import { buildOnce } from './helpers/build';
import { type BuiltinServe, listOrEcho, promptFromPage, startBuiltinServe } from './helpers/builtin-serve';
import { FakeServer } from './helpers/fake-server';
import { textOnlyThread } from './helpers/frames';
import { shootBothThemes } from './helpers/themes';

/**
 * The inspectors: Audit (table, filter, JSONL and CSV export, per-turn timeline) and Checkpoints (per
 * namespace, storage, size, SessionState), on rows recorded from a built-in engine thread
 * (`fixtures/builtin-inspectors.json`), on 5,000 rows, and on a live built-in engine thread, where a
 * checkpoint is forked into a new thread whose model request carries the history up to it, and whose timeline
 * shows that history (the original's rows up to the checkpoint, read-only) before its own rows.
 */
const skip = chromiumMissing();
let browser: Browser;
let fake: FakeServer;
let serve: BuiltinServe;

interface Recorded {
  audit: { calls: AuditableCall[]; nextCursor: null };
  checkpointList: { checkpoints: { checkpointId: string }[]; nextCursor: null };
  checkpoints: Record<string, unknown>;
}
const recorded = JSON.parse(
  readFileSync(new URL('./fixtures/builtin-inspectors.json', import.meta.url), 'utf8'),
) as Recorded;

/** 5,000 ledger rows: the recorded ones over and over, each with its own id and turn. */
function manyCalls(count: number): AuditableCall[] {
  return Array.from({ length: count }, (_, i) => {
    const base = recorded.audit.calls[i % recorded.audit.calls.length]!;
    return { ...base, record_id: `01J${String(i).padStart(23, '0')}`, turn_id: `turn-${Math.floor(i / 6)}` };
  });
}

beforeAll(async () => {
  if (skip) return;
  const webRoot = await buildOnce();
  fake = new FakeServer(webRoot);
  fake.addThread('th-rec', 'Recorded built-in thread', textOnlyThread('th-rec'));
  fake.replies.set('/sessions/th-rec/audit', recorded.audit);
  fake.replies.set('/sessions/th-rec/checkpoints', recorded.checkpointList);
  for (const [id, checkpoint] of Object.entries(recorded.checkpoints))
    fake.replies.set(`/sessions/th-rec/checkpoints/${id}`, checkpoint);
  fake.addThread('th-5k', 'Five thousand calls', textOnlyThread('th-5k'));
  fake.replies.set('/sessions/th-5k/audit', { calls: manyCalls(5000), nextCursor: null });
  await fake.start();
  serve = await startBuiltinServe(webRoot, listOrEcho);
  browser = await launch();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await fake?.stop();
  await serve?.stop();
});

async function openInspector(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.locator('[data-connection="live"]').waitFor();
  await page.getByRole('button', { name: 'Inspect', exact: true }).click();
  await page.locator('aside.inspector').waitFor();
}

async function downloaded(page: Page, button: string): Promise<string> {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: button }).click(),
  ]);
  return readFileSync((await file.path())!, 'utf8');
}

const count = (page: Page) => page.locator('[data-testid="audit-count"]').textContent();

describe.skipIf(skip)('inspectors', { timeout: 150_000 }, () => {
  it('audit and checkpoints on recorded rows: filter, export, timeline, SessionState', async () => {
    const page = await browser.context.newPage();
    await openInspector(page, `${fake.url}/#/t/th-rec`);
    const calls = recorded.audit.calls;
    await expect.poll(() => count(page)).toBe(`${calls.length} calls`);
    expect(await page.locator('.audit-body [role="row"]').count()).toBe(calls.length);
    await shootBothThemes(page, 'inspector-audit', page.locator('aside.inspector'));
    expect(await axeViolations(page, 'aside.inspector')).toEqual([]);

    // Exports: JSONL is the rows themselves, CSV the table.
    const jsonl = (await downloaded(page, 'Export JSONL')).trimEnd().split('\n');
    expect(jsonl.map((l) => (JSON.parse(l) as AuditableCall).record_id)).toEqual(
      calls.map((c) => c.record_id),
    );
    const tools = calls.filter((c) => c.call_class === 'tool');
    await page.getByLabel('Class').selectOption('tool');
    await expect.poll(() => count(page)).toBe(`${tools.length} of ${calls.length} calls`);
    const csv = (await downloaded(page, 'Export CSV')).trimEnd().split('\r\n');
    expect(csv[0]).toBe(
      'id,createdAt,turnId,stage,callClass,provider,model,name,status,latencyMs,inputTokens,outputTokens,cost,currency,error',
    );
    expect(csv.slice(1).map((l) => l.split(',')[0])).toEqual(tools.map((c) => c.record_id));
    await page.getByLabel('Class').selectOption('');
    await page.getByLabel('Filter').fill('list_files');
    await expect.poll(() => count(page)).toBe(`1 of ${calls.length} calls`);
    await page.getByLabel('Filter').fill('');

    // The per-turn timeline: one figure per turn, one bar per call.
    await page.getByRole('radio', { name: 'Timeline' }).check();
    const turns = new Set(calls.map((c) => c.turn_id)).size;
    await expect.poll(() => page.locator('figure.turn-timeline').count()).toBe(turns);
    expect(await page.locator('figure.turn-timeline rect').count()).toBe(calls.length);
    await shootBothThemes(page, 'inspector-audit-timeline', page.locator('aside.inspector'));

    // Checkpoints: every one listed with stage, storage and size; one opened shows its SessionState.
    await page.getByRole('tab', { name: 'Checkpoints' }).click();
    const list = recorded.checkpointList.checkpoints;
    await expect.poll(() => page.locator('table.checkpoints tbody tr').count()).toBe(list.length);
    expect(await page.locator('table.checkpoints tbody tr', { hasText: 'full' }).count()).toBeGreaterThan(0);
    expect(await page.locator('table.checkpoints tbody tr', { hasText: 'delta' }).count()).toBeGreaterThan(0);
    await page.locator(`tr[data-checkpoint-id="${list[0]!.checkpointId}"] button`).click();
    const state = page.locator('[data-testid="session-state"]');
    await state.locator('li[data-role="user"]', { hasText: 'list the folder' }).waitFor();
    expect(await state.locator('li[data-role="user"]', { hasText: 'hello there' }).count()).toBe(1);
    await shootBothThemes(page, 'inspector-checkpoints', page.locator('aside.inspector'));
    expect(await axeViolations(page, 'aside.inspector')).toEqual([]);
    await page.close();
  });

  it('moves between the inspector tabs with the keyboard (WAI-ARIA tabs: arrows, Home, End, one tab stop)', async () => {
    const page = await browser.context.newPage();
    await openInspector(page, `${fake.url}/#/t/th-rec`);
    const tabs = page.locator('aside.inspector [role="tab"]');
    /** Which tab has the focus, which is selected, and each tab's tabindex and aria-controls. */
    const tabState = () =>
      tabs.evaluateAll((nodes) => ({
        focused: document.activeElement?.textContent,
        selected: nodes.filter((n) => n.getAttribute('aria-selected') === 'true').map((n) => n.textContent),
        tabindex: nodes.map((n) => n.getAttribute('tabindex')),
        controls: [...new Set(nodes.map((n) => n.getAttribute('aria-controls')))],
      }));
    const panel = page.locator('aside.inspector [role="tabpanel"]');
    const names = ['Audit', 'Usage', 'Checkpoints', 'Raw frames', 'File history'];
    const expectOn = async (name: string) => {
      const state = await tabState();
      expect(state).toEqual({
        focused: name,
        selected: [name],
        tabindex: names.map((n) => (n === name ? '0' : '-1')),
        controls: [await panel.getAttribute('id')],
      });
      // The panel shows the selected tab and is named by it.
      const labelledBy = await panel.getAttribute('aria-labelledby');
      expect(await page.locator(`#${labelledBy}`).textContent()).toBe(name);
    };
    expect(await page.locator('[role="tablist"]').getAttribute('aria-label')).toBe('Inspectors');
    await tabs.first().focus();
    await expectOn('Audit');
    await page.keyboard.press('ArrowRight');
    await expectOn('Usage');
    await page.locator('section.usage-inspector').waitFor();
    await page.keyboard.press('ArrowRight');
    await expectOn('Checkpoints');
    await page.locator('section.checkpoints-inspector').waitFor();
    await page.keyboard.press('End');
    await expectOn('File history');
    await page.keyboard.press('ArrowRight');
    await expectOn('Audit');
    await page.keyboard.press('ArrowLeft');
    await expectOn('File history');
    await page.keyboard.press('Home');
    await expectOn('Audit');
    // One tab stop: Tab leaves the tab list (to the close button) instead of walking through the tabs.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'Close inspector',
    );
    await page.keyboard.press('Shift+Tab');
    await expectOn('Audit');
    expect(await axeViolations(page, 'aside.inspector')).toEqual([]);
    await page.close();
  });

  it('keeps 5,000 ledger rows virtualized', async () => {
    const page = await browser.context.newPage();
    await openInspector(page, `${fake.url}/#/t/th-5k`);
    await expect.poll(() => count(page), { timeout: 30_000 }).toBe('5000 calls');
    expect(await page.locator('.audit-body [role="row"]').count()).toBeLessThan(100);
    await page.locator('.audit-body').evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await page.locator(`[data-record-id="01J${String(4999).padStart(23, '0')}"]`).waitFor();
    await page.close();
  });

  it('on a live built-in thread, and a checkpoint forked into a new thread that continues from it', async () => {
    const threadId = await serve.createThread('Live inspectors');
    const page = await browser.context.newPage();
    await promptFromPage(page, serve, threadId, ['my name is Ada', 'list the folder']);
    await page.getByRole('button', { name: 'Inspect', exact: true }).click();
    const api = (await (await fetch(serve.api(`/sessions/${threadId}/audit?limit=1000`))).json()) as {
      calls: AuditableCall[];
    };
    expect(api.calls.length).toBeGreaterThan(2);
    await expect.poll(() => count(page)).toBe(`${api.calls.length} calls`);

    // The newest checkpoint that knows the first prompt and not the second: continue from there.
    await page.getByRole('tab', { name: 'Checkpoints' }).click();
    const rows = page.locator('table.checkpoints tbody tr');
    await expect.poll(() => rows.count()).toBeGreaterThan(2);
    const state = page.locator('[data-testid="session-state"]');
    let found = false;
    for (let i = 0; i < (await rows.count()) && !found; i++) {
      const button = rows.nth(i).getByRole('button');
      const id = /checkpoint (\S+)/.exec((await button.textContent()) ?? '')?.[1];
      await button.click();
      // The pane shows the previous checkpoint until this one is read: wait for this one.
      await page.locator(`[data-testid="session-state"][data-checkpoint-id="${id}"]`).waitFor();
      await state.locator('li[data-role="user"]').first().waitFor();
      const users = await state.locator('li[data-role="user"]').allTextContents();
      found =
        users.some((u) => u.includes('my name is Ada')) && !users.some((u) => u.includes('list the folder'));
    }
    expect(found).toBe(true);
    await page.getByRole('button', { name: 'Continue in a new thread from here' }).click();
    await page.waitForURL((url) => url.hash.startsWith('#/t/') && !url.hash.includes(threadId));
    const fork = decodeURIComponent(new URL(page.url()).hash.slice('#/t/'.length));
    await page
      .locator(`.sidebar a[data-thread-id="${fork}"]`, { hasText: 'Live inspectors (fork)' })
      .waitFor();

    // The new thread links back to the one it was forked from.
    expect(await page.locator('a.forked-from').getAttribute('href')).toBe(
      `#/t/${encodeURIComponent(threadId)}`,
    );
    // Its timeline starts with the history it continues: the original's first turn, read-only, then the
    // fork point naming the original (a link) and where it was cut; nothing of the second turn.
    const marker = page.locator('.fork-marker');
    await expect
      .poll(() => marker.textContent())
      .toMatch(
        /Forked from Live inspectors at turn 1, at its end .*Above: its rows up to that point, read-only/,
      );
    expect(await marker.locator('a.fork-origin').getAttribute('href')).toBe(
      `#/t/${encodeURIComponent(threadId)}`,
    );
    const history = page.locator('.row.history');
    expect(await history.locator('.message.user').allTextContents()).toEqual(['Youmy name is Ada']);
    expect(await history.locator('.message.assistant').allTextContents()).toEqual([
      expect.stringContaining('echo: my name is Ada'),
    ]);
    expect(await page.locator('.timeline').textContent()).not.toContain('list the folder');
    expect(await history.locator('button.row-inspect').count()).toBe(0);

    const before = serve.fake.modelRequests().length;
    await page.locator('[data-connection="live"]').waitFor();
    await page.locator('#prompt').fill('what is my name?');
    await page.keyboard.press('Enter');
    await page
      .locator('.message.assistant', { hasText: 'echo: what is my name?' })
      .waitFor({ timeout: 60_000 });
    // Its own rows follow the fork point, and are its own (not history).
    const order = await page
      .locator('.timeline .row, .timeline .fork-marker')
      .evaluateAll((nodes) =>
        nodes.map((n) =>
          n.classList.contains('fork-marker') ? 'fork' : n.classList.contains('history') ? 'history' : 'own',
        ),
      );
    expect(order.indexOf('fork')).toBe(order.lastIndexOf('history') + 1);
    expect(order.slice(order.indexOf('fork') + 1).every((r) => r === 'own')).toBe(true);
    expect(await page.locator('.row:not(.history) .message.assistant').allTextContents()).toEqual([
      expect.stringContaining('echo: what is my name?'),
    ]);
    expect(await axeViolations(page, 'main.thread')).toEqual([]);
    await shootBothThemes(page, 'thread-fork', page.locator('main.thread'));
    const messages = (
      serve.fake.modelRequests().at(before)!.body as { messages: { role: string; content: unknown }[] }
    ).messages
      .filter((m) => m.role === 'user')
      .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
    expect(messages).toEqual(['my name is Ada', 'what is my name?']);
    await page.close();
  });
  it('forks after a turn from the timeline: the new thread continues from that turn’s end', async () => {
    const threadId = await serve.createThread('Turn fork');
    const page = await browser.context.newPage();
    await promptFromPage(page, serve, threadId, ['remember mango', 'now remember papaya']);
    const buttons = page.getByRole('button', { name: 'Fork after this turn' });
    await expect.poll(() => buttons.count()).toBe(2);
    await buttons.first().click();
    await page.waitForURL((url) => url.hash.startsWith('#/t/') && !url.hash.includes(threadId));
    await page.locator('.fork-marker').waitFor();
    expect(await page.locator('.row.history .message.user').allTextContents()).toEqual(['Youremember mango']);
    // History rows cannot be forked from here: they are the origin's.
    expect(
      await page.locator('.row.history').getByRole('button', { name: 'Fork after this turn' }).count(),
    ).toBe(0);
    const before = serve.fake.modelRequests().length;
    await page.locator('[data-connection="live"]').waitFor();
    await page.locator('#prompt').fill('which fruit?');
    await page.keyboard.press('Enter');
    await page.locator('.message.assistant', { hasText: 'echo: which fruit?' }).waitFor({ timeout: 60_000 });
    const users = (
      serve.fake.modelRequests().at(before)!.body as { messages: { role: string; content: unknown }[] }
    ).messages
      .filter((m) => m.role === 'user')
      .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
    expect(users).toEqual(['remember mango', 'which fruit?']);
    expect(await axeViolations(page, 'main.thread')).toEqual([]);
    await page.close();
  });
});
