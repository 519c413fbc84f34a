import type { JsonValue } from '@agentlane/contract';
import { REDACTED, SecretRedactor, secretsFromEnv } from '@agentlane/engine-kit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DROPPED_PREVIEW_CHARS,
  FRAME_TOO_DEEP,
  guardFrame,
  MAX_FRAME_DEPTH,
  nestedDeeperThan,
} from '../src/internal';
import { createAuditingTranslator, deepFrame, playFrames } from './helpers/frame-driver';
import { sqliteTestStore, type TestStore } from './helpers/stores';
import { openTestPipeline } from './helpers/test-pipeline';

const KEY = 'sk-ant-api03-THISISTHESECRETKEYVALUE0123456789';
const TOKEN = 'ghp_S3cretGithubToken0123456789';

function openPipeline(t: TestStore, redactor?: SecretRedactor) {
  return openTestPipeline(t, {
    translator: createAuditingTranslator() as never,
    ...(redactor ? { redactor } : {}),
  });
}

/** Everything the run left behind, as one text to search. */
async function everything(t: TestStore, runId: string, extra: unknown[]): Promise<string> {
  const frames = await t.store.readFrames(runId);
  const raw = await t.store.readRawFrames(runId);
  const rows = await t.store.readEvents('th', 0, 1000);
  return [
    JSON.stringify(frames),
    raw.map((r) => Buffer.from(r.content ?? []).toString('utf8')).join('\n'),
    JSON.stringify(rows),
    JSON.stringify(extra),
  ].join('\n');
}

describe('SecretRedactor', () => {
  it('replaces known secret values and header-shaped credentials, and ignores short values', () => {
    const r = new SecretRedactor([KEY, 'short', undefined]);
    expect(r.size).toBe(1);
    expect(r.text(`my key is ${KEY}!`)).toBe(`my key is ${REDACTED}!`);
    expect(r.text('short stays')).toBe('short stays');
    expect(r.text('Authorization: Bearer abc.def-123456789')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(r.text('x-api-key: zzzzzzzzzzzz99')).toBe(`x-api-key: ${REDACTED}`);
    expect(r.text('{"authorization":"Basic dXNlcjpwYXNz"}')).not.toContain('dXNlcjpwYXNz');
    expect(r.text('curl -H "api_key=abcdef123456"')).not.toContain('abcdef123456');
    expect(r.text('the bearer of good news')).toBe('the bearer of good news');
    expect(r.json({ headers: { 'X-Api-Key': 'anything-at-all', ok: 'fine' } })).toEqual({
      headers: { 'X-Api-Key': REDACTED, ok: 'fine' },
    });
    const bytes = new TextEncoder().encode(`{"text":"${KEY}"}`);
    expect(Buffer.from(r.raw(bytes) as Uint8Array).toString('utf8')).toBe(`{"text":"${REDACTED}"}`);
    const clean = new TextEncoder().encode('{"text":"nothing"}');
    expect(r.raw(clean)).toBe(clean);
  });

  it('collects provider keys, named variables and credential-shaped variables from an environment', () => {
    const env = {
      ANTHROPIC_API_KEY: KEY,
      MY_ENGINE_KEY: 'engine-key-value-123',
      GITHUB_TOKEN: TOKEN,
      HOME: '/home/someone/long-enough',
      SHORT_TOKEN: 'abc',
    };
    const secrets = secretsFromEnv(env, ['MY_ENGINE_KEY']);
    expect(secrets).toContain(KEY);
    expect(secrets).toContain('engine-key-value-123');
    expect(secrets).toContain(TOKEN);
    expect(secrets).not.toContain('/home/someone/long-enough');
  });
});

describe('RunPipeline keeps secrets out of what it stores', () => {
  let t: TestStore | null = null;
  afterEach(async () => {
    await t?.cleanup();
    t = null;
  });

  it('redacts frames, raw bytes, events, SSE, audit rows, logs and the run error', async () => {
    t = await sqliteTestStore({ fast: true });
    const redactor = new SecretRedactor(secretsFromEnv({ OPENAI_API_KEY: KEY, GITHUB_TOKEN: TOKEN }));
    const { pipeline, hub, seen, audited, logs, runId } = await openPipeline(t, redactor);
    const line = (frame: JsonValue) => ({ frame, raw: `${JSON.stringify(frame)}\n` });
    playFrames(pipeline, [
      { frame: { harness: 'turn.started', prompt: 'echo your key' } },
      line({ t: 'delta', text: `my key is ${KEY}` }),
      line({ t: 'delta', text: 'header: Authorization: Bearer tok_1234567890abcdef' }),
      line({ t: 'snapshot', id: `s-${TOKEN}`, text: `x-api-key: ${KEY}` }),
      {
        frame: { t: 'approval', id: `approve ${KEY}` },
        raw: new TextEncoder().encode(`{"t":"approval","id":"approve ${KEY}"}`),
      },
      line({ t: 'big', text: `${'x'.repeat(100)} ${KEY}` }),
      line({ t: 'audit', text: `called with ${KEY}` }),
      { frame: { harness: 'engine.error', message: `stderr: ${KEY}`, fatal: false } },
      { frame: { harness: 'turn.ended', outcome: 'failed', error: `engine said ${TOKEN}` } },
    ]);
    await pipeline.drain();
    hub.close();
    expect(pipeline.error).toBeNull();
    const runError = pipeline.redactText(
      `the engine failed: ${KEY} (Authorization: Bearer tok_1234567890abcdef)`,
    );
    const text = await everything(t, runId, [seen, audited, logs, runError]);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('tok_1234567890abcdef');
    expect(text).toContain(REDACTED);
    // The redacted frames still translate: the deltas, the audit row, the error are all there.
    const rows = await t.store.readEvents('th', 0, 1000);
    expect(rows.filter((r) => r.kind === 'message.delta')).toHaveLength(2);
    expect(rows.some((r) => r.kind === 'harness.error')).toBe(true);
    expect(audited).toHaveLength(1);
    expect((await t.store.readRawFrames(runId)).length).toBeGreaterThanOrEqual(5);
  });

  it('stores frames as the engine sent them without a redactor', async () => {
    t = await sqliteTestStore({ fast: true });
    const { pipeline, hub, runId } = await openPipeline(t);
    playFrames(pipeline, [{ frame: { t: 'delta', text: `key ${KEY}` } }]);
    await pipeline.drain();
    hub.close();
    expect(JSON.stringify(await t.store.readFrames(runId))).toContain(KEY);
  });
});

describe('RunPipeline: a credential header an engine split across two frames', () => {
  let t: TestStore | null = null;
  afterEach(async () => {
    await t?.cleanup();
    t = null;
  });

  const SPLIT = 'tok_Split0123456789abcdef';
  const NAMED = 'xak_Named0123456789abcdef';
  const BASIC = 'dXNlcjpzM2NyZXRwYXNzd29yZA';

  it('is not stored in the second frame, nor in its raw bytes, events or SSE; each frame is stored at once', async () => {
    t = await sqliteTestStore({ fast: true });
    const { pipeline, hub, seen, runId } = await openPipeline(t, new SecretRedactor([KEY]));
    const line = (frame: JsonValue) => ({ frame, raw: `${JSON.stringify(frame)}\n` });
    playFrames(pipeline, [
      { frame: { harness: 'turn.started', prompt: 'p' } },
      line({ t: 'delta', text: 'curl -H "Authorization: Bear' }),
      line({ t: 'delta', text: `er ${SPLIT}" https://api` }),
    ]);
    // Stored before the next frame comes (nothing held back for it).
    await pipeline.drain();
    expect(await t.store.readFrames(runId)).toHaveLength(3);
    playFrames(pipeline, [
      line({ t: 'delta', text: ' and X-Api' }),
      line({ t: 'delta', text: `-Key: ${NAMED}, Author` }),
      line({ t: 'delta', text: `ization: Basic ${BASIC}= done` }),
      { frame: { harness: 'turn.ended', outcome: 'completed' } },
    ]);
    await pipeline.drain();
    hub.close();
    expect(pipeline.error).toBeNull();
    const text = await everything(t, runId, [seen]);
    for (const secret of [SPLIT, NAMED, BASIC]) expect(text).not.toContain(secret.slice(4, 16));
    const stored = (await t.store.readFrames(runId)).map((f) => (f.frame as { text?: string }).text);
    expect(stored.slice(1, 6)).toEqual([
      'curl -H "Authorization: [REDACTED]',
      `er ${REDACTED}" https://api`,
      ' and X-Api',
      `-Key: ${REDACTED}, Author`,
      `ization: Basic ${REDACTED} done`,
    ]);
    // The raw copies are kept, with the same values replaced.
    const raw = (await t.store.readRawFrames(runId)).map((r) =>
      Buffer.from(r.content ?? []).toString('utf8'),
    );
    expect(raw).toHaveLength(5);
    expect(raw[1]).toBe(`{"t":"delta","text":"er ${REDACTED}\\" https://api"}\n`);
  });
});

describe('RunPipeline refuses frames nested too deep', () => {
  let t: TestStore | null = null;
  afterEach(async () => {
    await t?.cleanup();
    t = null;
  });

  it('measures depth without recursion', () => {
    expect(nestedDeeperThan(deepFrame(MAX_FRAME_DEPTH).frame, MAX_FRAME_DEPTH)).toBe(false);
    expect(nestedDeeperThan(deepFrame(MAX_FRAME_DEPTH + 1).frame, MAX_FRAME_DEPTH)).toBe(true);
    expect(nestedDeeperThan(deepFrame(100_000).frame, MAX_FRAME_DEPTH)).toBe(true);
    expect(nestedDeeperThan('text', 1)).toBe(false);
  });

  it('replaces a 5,000-level frame by frame.dropped (a harness.warning); its neighbours are stored and the run goes on', async () => {
    t = await sqliteTestStore({ fast: true });
    const redactor = new SecretRedactor([KEY]);
    const { pipeline, hub, seen, logs, runId } = await openPipeline(t, redactor);
    const deep = deepFrame(5000);
    // A secret in the dropped frame's preview is redacted too.
    const raw = `{"key":"${KEY}",${(deep.raw as string).slice(1)}`;
    playFrames(pipeline, [
      { frame: { harness: 'turn.started', prompt: 'p' } },
      { frame: { t: 'delta', text: 'before' } },
      { frame: deep.frame, raw },
      { frame: { t: 'delta', text: 'after' } },
    ]);
    await pipeline.drain();
    // A later flush (the joint frames + rows commit) also survives one.
    playFrames(pipeline, [deepFrame(3000), { frame: { t: 'delta', text: 'later' } }]);
    playFrames(pipeline, [{ frame: { harness: 'turn.ended', outcome: 'completed' } }]);
    await pipeline.drain();
    hub.close();
    expect(pipeline.error).toBeNull();

    const frames = (await t.store.readFrames(runId)).map((f) => f.frame as Record<string, JsonValue>);
    expect(frames).toHaveLength(7);
    expect(frames[1]).toEqual({ t: 'delta', text: 'before' });
    expect(frames[3]).toEqual({ t: 'delta', text: 'after' });
    expect(frames[5]).toEqual({ t: 'delta', text: 'later' });
    for (const dropped of [frames[2], frames[4]]) {
      expect(dropped).toMatchObject({ harness: 'frame.dropped', reason: FRAME_TOO_DEEP });
      const detail = (dropped as { detail: { maxDepth: number; preview: string } }).detail;
      expect(detail.maxDepth).toBe(MAX_FRAME_DEPTH);
      expect(detail.preview.length).toBeLessThanOrEqual(DROPPED_PREVIEW_CHARS);
      expect(detail.preview.length).toBeGreaterThan(100);
    }
    const firstPreview = (frames[2] as { detail: { preview: string } }).detail.preview;
    expect(firstPreview.startsWith(`{"key":"${REDACTED}"`)).toBe(true);
    // No raw copy of a dropped frame.
    expect((await t.store.readRawFrames(runId)).map((r) => r.nativeSeq)).toEqual([]);

    const rows = await t.store.readEvents('th', 0, 1000);
    const warnings = rows.filter((r) => r.kind === 'harness.warning');
    expect(warnings).toHaveLength(2);
    for (const w of warnings) expect(w.event.payload).toMatchObject({ code: 'harness.frame_dropped' });
    expect(rows.filter((r) => r.kind === 'harness.error')).toEqual([]);
    expect(rows.filter((r) => r.kind === 'message.delta')).toHaveLength(3);
    expect(rows.some((r) => r.kind === 'turn.completed')).toBe(true);
    expect(JSON.stringify(seen)).toContain('a frame from the engine was dropped');
    expect(logs.filter((l) => l.includes('was dropped'))).toHaveLength(2);
    expect(JSON.stringify(rows)).not.toContain(KEY);
  });

  it('guards a deep frame without raw text: the preview is its JSON prefix', () => {
    const { frame, raw, dropped } = guardFrame(deepFrame(1000).frame);
    expect(dropped).toContain(String(MAX_FRAME_DEPTH));
    expect(raw).toBeUndefined();
    const preview = (frame as { detail: { preview: string } }).detail.preview;
    expect(preview.startsWith(`{"t":"deep","v":`)).toBe(true);
    expect(preview).toHaveLength(DROPPED_PREVIEW_CHARS);
  });
});
