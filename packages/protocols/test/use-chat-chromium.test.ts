import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type FakeModelServer,
  type ModelReply,
  type RecordedRequest,
  startFakeModelServer,
  writeFileTool,
} from '@agentlane/fake-model-server';
import {
  builtinServeConfig,
  engineEntries,
  type ServeProcess,
  startServeProcess,
} from '@agentlane/test-engines';
import type { UIMessage } from 'ai';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, chromiumMissing, launch } from '../../web/test/e2e/helpers/browser';
import { buildChatPage } from './support/chat-page';

/**
 * The real `useChat` hook (@ai-sdk/react, DefaultChatTransport) in Chromium, on a page served by a real
 * `agentlane serve` process: the built-in engine (its model the fake model server) with an approval, a
 * replay, a real ACP engine (the pinned Claude Code on the same fake model server) with an approval, a reload
 * in mid-stream and a SIGKILL of the server in mid-stream with a restart on the same port and database. What
 * useChat ends up holding is compared with an uninterrupted run and with a fresh page.
 */
const skip = chromiumMissing();
const claude = engineEntries().claude;
if (!skip && !claude) {
  if (process.env.CI === 'true') throw new Error('Claude Code ACP is not installed in testing/engines');
  console.warn('[skip] useChat with a real ACP engine: the pinned Claude Code ACP is not installed');
}

const recording = fileURLToPath(
  new URL('../../adapters/replay/recordings/claude-agent-acp.wire.jsonl', import.meta.url),
);
// Slow enough (~6 s) that a loaded machine still polls the page while the story is under way.
const STORY = Array.from({ length: 48 }, (_, i) => `story${i} `).join('');

/** One reply per prompt: the scenarios below never share a prompt. */
function reply(request: RecordedRequest): ModelReply {
  const prompt = request.lastUserPrompt;
  const toolResults = request.toolResultsSinceUserPrompt;
  if (prompt?.includes('Claude, create claude.txt'))
    return toolResults > 0
      ? { text: 'Done: claude.txt holds hi.' }
      : { text: 'Writing it.', toolCalls: [writeFileTool(join(dir, 'work', 'claude.txt'), 'hi\n')(request)] };
  if (prompt === 'Create hello.txt')
    return toolResults > 0
      ? { text: 'Done: hello.txt holds hi.' }
      : {
          text: 'Writing it.',
          toolCalls: [
            { name: 'write_file', arguments: { path: 'hello.txt', content: 'hi\n' }, id: 'call_w1' },
          ],
        };
  if (prompt === 'Tell a slow story')
    return { reasoning: 'Thinking slowly.', text: STORY, chunkSize: 7, chunkDelayMs: 100 };
  return { text: `You said: ${prompt}` };
}

let browser: Browser;
let fake: FakeModelServer;
let dir: string;
let server: ServeProcess;
const processes: ServeProcess[] = [];

const startServe = async (port: number) => {
  const started = await startServeProcess([
    ...['--port', String(port), '--db', join(dir, 'agentlane.db'), '--config', join(dir, 'agentlane.json')],
    // A killed process's run is settled by the next one within about a lease.
    ...['--run-lease-ms', '1000', '--run-lease-renew-ms', '250'],
  ]);
  processes.push(started);
  return started;
};

beforeAll(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'agentlane-use-chat-'));
  mkdirSync(join(dir, 'work'));
  const [webRoot, fakeServer, chromium] = await Promise.all([
    buildChatPage(),
    startFakeModelServer({ scenario: reply }),
    launch(),
  ]);
  fake = fakeServer;
  browser = chromium;
  const config = builtinServeConfig({
    fakeUrl: fake.url,
    workDir: join(dir, 'work'),
    apiKey: 'sk-use-chat-test-0123456789',
    webRoot,
    plan: false,
  });
  const engines = [
    ...(config.engines as unknown[]),
    { name: 'replay', type: 'replay', trace: recording, provider: 'acp', speed: 0 },
    ...(claude
      ? [
          {
            name: 'claude',
            type: 'acp',
            preset: 'claude-code',
            entry: claude,
            modelBaseUrl: fake.url,
            homeRoot: join(dir, 'homes'),
          },
        ]
      : []),
  ];
  writeFileSync(join(dir, 'agentlane.json'), JSON.stringify({ ...config, engines }));
  server = await startServe(0);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const child of processes) await child.kill();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface ChatState {
  status: string;
  error?: string;
  messages: UIMessage[];
  generation: number;
}

/** What useChat holds, as JSON (so a key useChat set to undefined and one it never set compare equal). */
const state = async (page: Page): Promise<ChatState> =>
  JSON.parse(
    await page.evaluate(() =>
      JSON.stringify((globalThis as unknown as { chatState?: ChatState }).chatState ?? null),
    ),
  );

async function openChat(chat: string, engine = 'builtin'): Promise<Page> {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(`${server.url}/?chat=${chat}&engine=${engine}`);
  await page.locator('#prompt').waitFor();
  return page;
}

async function send(page: Page, text: string): Promise<void> {
  await page.locator('#prompt').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

/** Waits until useChat is ready with an assistant message whose text passes `done`. */
async function settled(page: Page, done: (text: string) => boolean = () => true): Promise<ChatState> {
  for (const deadline = Date.now() + 30_000; ; ) {
    const now = await state(page);
    const last = now?.messages.at(-1);
    if (now?.status === 'ready' && last?.role === 'assistant' && done(textOf(last))) return now;
    if (Date.now() > deadline) throw new Error(`chat not settled: ${JSON.stringify(now).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until useChat holds part of the answer, well before its end. */
async function streamedSome(page: Page): Promise<void> {
  for (const deadline = Date.now() + 20_000; ; ) {
    const now = await state(page);
    const text = textOf(now?.messages.at(-1));
    if (now?.messages.at(-1)?.role === 'assistant' && text.length > 0 && text.length < (STORY.length * 3) / 4)
      return;
    if (Date.now() > deadline) throw new Error(`no part of the answer streamed: ${JSON.stringify(now)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const textOf = (m: UIMessage | undefined) =>
  (m?.parts ?? []).flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');

/** Messages without what names one run (ids, cursors), to compare two runs of the same script. */
const shape = (messages: UIMessage[]) =>
  messages.map((m) => ({
    role: m.role,
    parts: m.parts,
    stopReason: (m.metadata as { agentlane?: { stopReason?: string } } | undefined)?.agentlane?.stopReason,
  }));

/** What a page opened now shows: the store's messages and nothing to resume. */
async function freshView(chat: string, engine = 'builtin'): Promise<UIMessage[]> {
  const page = await openChat(chat, engine);
  await page.waitForFunction(() => {
    const s = (globalThis as unknown as { chatState?: ChatState }).chatState;
    return s?.status === 'ready' && s.messages.length > 0;
  });
  const { messages } = await state(page);
  await page.close();
  return messages;
}

describe.skipIf(skip)('useChat in Chromium against agentlane serve', { timeout: 60_000 }, () => {
  it('built-in engine: the approval card, Allow, the rest of the turn in the same message', async () => {
    const page = await openChat('chat-approve');
    await send(page, 'Create hello.txt');
    await page.locator('.approval').getByRole('button', { name: 'Allow' }).click();
    const { messages, error } = await settled(page, (t) => t.includes('Done'));
    expect(error).toBeUndefined();
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(textOf(messages[1])).toBe('Writing it.Done: hello.txt holds hi.');
    expect(messages[1]?.parts.find((p) => p.type === 'dynamic-tool')).toMatchObject({
      toolCallId: 'call_w1',
      state: 'output-available',
    });
    expect(await freshView('chat-approve')).toEqual(messages);
    await page.close();
  });

  it('a replay of a recorded Claude Code session', async () => {
    const page = await openChat('chat-replay', 'replay');
    await send(page, 'Create hello.txt');
    const { messages } = await settled(page);
    expect(textOf(messages[1])).toBe(
      'I will create hello.txt now.Done: hello.txt was written. (final answer from fake model)',
    );
    expect(messages[1]?.parts.some((p) => p.type === 'reasoning')).toBe(true);
    // The recording answered its own approval: the stream has no chunk for an answer, so only the rebuilt
    // message (from the store's approval.resolved) says it was allowed; the rest is the same.
    const fresh = await freshView('chat-replay', 'replay');
    const tool = fresh[1]?.parts.find((p) => p.type === 'dynamic-tool');
    expect(tool?.approval).toEqual({ id: 'perm-0', approved: true });
    if (tool?.approval) tool.approval = { id: tool.approval.id } as typeof tool.approval;
    expect(fresh).toEqual(messages);
    await page.close();
  });

  it.skipIf(!claude)(
    'a real ACP engine (Claude Code on the fake model): the approval card, Allow, the file written',
    async () => {
      const page = await openChat('chat-claude', 'claude');
      await send(page, 'Claude, create claude.txt');
      await page.locator('.approval').getByRole('button', { name: 'Allow' }).click({ timeout: 60_000 });
      const { messages, error } = await settled(page, (t) => t.includes('Done: claude.txt'));
      expect(error).toBeUndefined();
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(textOf(messages[1])).toContain('Done: claude.txt holds hi.');
      expect(
        messages[1]?.parts.some((p) => p.type === 'dynamic-tool' && p.state === 'output-available'),
      ).toBe(true);
      expect(readFileSync(join(dir, 'work', 'claude.txt'), 'utf8')).toBe('hi\n');
      expect(shape(await freshView('chat-claude', 'claude'))).toEqual(shape(messages));
      await page.close();
    },
    120_000,
  );

  it('a reload in mid-stream ends with the messages of an uninterrupted run', async () => {
    const [calm, reloaded] = await Promise.all([openChat('chat-calm'), openChat('chat-reload')]);
    await Promise.all([send(calm, 'Tell a slow story'), send(reloaded, 'Tell a slow story')]);
    await streamedSome(reloaded);
    await reloaded.reload();
    const [uninterrupted, after] = await Promise.all([
      settled(calm, (t) => t === STORY),
      settled(reloaded, (t) => t === STORY),
    ]);
    expect(shape(after.messages)).toEqual(shape(uninterrupted.messages));
    expect(await freshView('chat-reload')).toEqual(after.messages);
    await Promise.all([calm.close(), reloaded.close()]);
  });

  it('agentlane serve SIGKILLed in mid-stream and started again: the page catches up, nothing doubled', async () => {
    const page = await openChat('chat-kill');
    await send(page, 'Tell a slow story');
    await streamedSome(page);
    await server.kill();
    const beforeKill = textOf((await state(page)).messages[1]);
    server = await startServe(Number(new URL(server.url).port));
    // The page reconnects from the store; the killed run ends where the kill cut it.
    const { messages, generation } = await settled(page);
    expect(generation).toBeGreaterThan(0);
    const text = textOf(messages[1]);
    expect(text.startsWith(beforeKill)).toBe(true);
    expect(STORY.startsWith(text)).toBe(true);
    expect(await freshView('chat-kill')).toEqual(messages);
    // The chat goes on after the restart.
    await send(page, 'Are you there?');
    const next = await settled(page, (t) => t === 'You said: Are you there?');
    expect(next.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    await page.close();
  });
});
