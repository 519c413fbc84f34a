import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveServeConfig, serve } from '@agentlane/cli';
import { type FakeModelServer, type Scenario, startFakeModelServer } from '@agentlane/fake-model-server';
import { builtinServeConfig } from '@agentlane/test-engines';
import type { Page } from 'playwright-core';

/** `agentlane serve` in this process with the built-in engine, whose model is the fake model server. */
export interface BuiltinServe {
  url: string;
  fake: FakeModelServer;
  work: string;
  api(path: string): string;
  /** Creates a thread on the built-in engine through the API; returns its id. */
  createThread(title?: string): Promise<string>;
  /** run.create through the API; returns the run id. */
  prompt(threadId: string, prompt: string): Promise<string>;
  cancel(runId: string): Promise<void>;
  /** Polls the thread's activity (GET /sessions/:id) until it has this status. */
  waitForStatus(threadId: string, status: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startBuiltinServe(
  webRoot: string | undefined,
  scenario: Scenario,
): Promise<BuiltinServe> {
  const fake = await startFakeModelServer({ scenario });
  const dir = mkdtempSync(join(tmpdir(), 'agentlane-web-builtin-'));
  const work = join(dir, 'work');
  mkdirSync(work);
  const configFile = join(dir, 'agentlane.json');
  writeFileSync(
    configFile,
    JSON.stringify(
      builtinServeConfig({
        fakeUrl: fake.url,
        workDir: work,
        apiKey: 'sk-web-test-0123456789',
        ...(webRoot ? { webRoot } : {}),
      }),
    ),
  );
  const config = resolveServeConfig(
    {
      port: '0',
      dataDir: dir,
      config: configFile,
      // Four run slots, named here rather than taken from the default: the sidebar test fills them all.
      maxConcurrentRuns: '4',
      ...(webRoot ? { webRoot } : { webRoot: join(dir, 'no-web') }),
    },
    {},
  );
  const server = await serve(config, () => {});
  const api = (path: string) => `${server.url}/api/harness${path}`;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(api(path), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, { id?: string; runId?: string }>;
  };
  return {
    url: server.url,
    fake,
    work,
    api,
    async createThread(title) {
      const { session } = await post('/sessions', {
        engine: 'builtin',
        workDir: work,
        ...(title ? { title } : {}),
      });
      return session!.id!;
    },
    async prompt(threadId, prompt) {
      const { run } = await post(`/threads/${threadId}/runs`, { prompt });
      return run!.runId!;
    },
    async cancel(runId) {
      await post(`/runs/${runId}/cancel`, {});
    },
    async waitForStatus(threadId, status, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { session } = (await (await fetch(api(`/sessions/${threadId}`))).json()) as {
          session: { activity?: { status: string } };
        };
        if (session.activity?.status === status) return;
        if (Date.now() > deadline)
          throw new Error(`thread ${threadId} is ${session.activity?.status}, not ${status}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      await server.stop();
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A prompt starting with "list" lists the folder (a list_files call, then the answer); others are echoed. */
export const listOrEcho: Scenario = (request) =>
  request.toolResultsSinceUserPrompt > 0
    ? { text: 'The folder has one file.' }
    : request.lastUserPrompt?.startsWith('list')
      ? { text: 'Listing.', toolCalls: [{ name: 'list_files', arguments: { path: '.' } }] }
      : { text: `echo: ${request.lastUserPrompt}` };

/** Opens the thread in the page and sends each prompt from the composer, waiting for its run to be done. */
export async function promptFromPage(
  page: Page,
  serve: BuiltinServe,
  threadId: string,
  prompts: readonly string[],
): Promise<void> {
  await page.goto(`${serve.url}/#/t/${threadId}`);
  await page.locator('[data-connection="live"]').waitFor();
  for (const prompt of prompts) {
    await page.locator('#prompt').fill(prompt);
    await page.keyboard.press('Enter');
    await serve.waitForStatus(threadId, 'done');
  }
}
