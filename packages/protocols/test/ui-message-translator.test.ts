import type { CanonicalEvent } from '@agentlane/contract';
import { isToolUIPart, readUIMessageStream, type UIMessage, uiMessageChunkSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { chunksToMessage } from '../src/ai-sdk-ui/chat-history';
import { type UiChunk, UiMessageTranslator } from '../src/ai-sdk-ui/ui-message-translator';
import { appendInputRows, RECORDED, type RecordedName, recordedRows } from './support/fixtures';

const schema = uiMessageChunkSchema();

/** Every chunk must pass the AI SDK's own UI message chunk schema. */
async function expectValidChunks(chunks: UiChunk[]): Promise<void> {
  for (const chunk of chunks) {
    const result = await schema.validate?.(chunk);
    expect(result?.success, JSON.stringify(chunk)).toBe(true);
  }
}

function translateAll(rows: { deliverySeq: number; event: CanonicalEvent }[]): UiChunk[] {
  const t = new UiMessageTranslator({ threadId: 'thr', runId: 'run_fixture' });
  const chunks = t.start();
  for (const row of rows) chunks.push(...t.push(row));
  chunks.push(...t.finish());
  return chunks;
}

/** A row of run `r` on thread `t`: the event `kind` at seq (and deliverySeq) `i`. */
const ev = (i: number, kind: string, payload: unknown) => ({
  deliverySeq: i,
  event: {
    schemaVersion: 1,
    runId: 'r',
    threadId: 't',
    turnId: 'r',
    ts: '2026-01-01T00:00:00Z',
    identity: { provider: 'x' },
    eventId: `e${i}`,
    seq: i,
    kind,
    payload,
  } as CanonicalEvent,
});

const assistantText = (rows: { event: CanonicalEvent }[]) =>
  rows
    .flatMap(({ event }) =>
      event.kind === 'message.completed' && event.payload.role === 'assistant' ? [event.payload.text] : [],
    )
    .join('');

/** `message` continued with the chunks of a new stream, as useChat reads a resumed stream into it. */
async function continueMessage(message: UIMessage, chunks: UiChunk[]): Promise<UIMessage> {
  const stream = new ReadableStream<UiChunk>({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
  let last = message;
  for await (const m of readUIMessageStream({ message, stream, terminateOnError: true })) last = m;
  return structuredClone(last);
}

const textOf = (m: UIMessage) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');

describe('canonical events → AI SDK UI message chunks, on recorded engine sessions', () => {
  it.each(Object.keys(RECORDED) as RecordedName[])(
    '%s: valid chunks that read into the run message',
    async (name) => {
      const rows = recordedRows(name);
      const chunks = translateAll(rows);
      await expectValidChunks(chunks);
      const message = (await chunksToMessage(chunks)) as UIMessage;
      expect(message.id).toBe('msg-run_fixture');
      expect(message.role).toBe('assistant');
      // The user's prompt never appears in the assistant message; every assistant text does, once.
      expect(textOf(message)).toBe(assistantText(rows));
      const tools = message.parts.filter(isToolUIPart);
      const toolIds = new Set(
        rows.flatMap(({ event }) => (event.kind === 'tool.started' ? [event.payload.toolCallId] : [])),
      );
      expect(tools.map((t) => t.toolCallId).sort()).toEqual([...toolIds].sort());
      for (const tool of tools) expect(tool.state).toBe('output-available');
      const reasoning = rows.flatMap(({ event }) =>
        event.kind === 'reasoning.completed' ? [event.payload.text] : [],
      );
      expect(message.parts.flatMap((p) => (p.type === 'reasoning' ? [p.text] : []))).toEqual(reasoning);
      const finish = chunks[chunks.length - 1];
      expect(finish).toMatchObject({ type: 'finish', finishReason: 'stop' });
      expect(chunks.filter((c) => c.type === 'start-step').length).toBe(
        chunks.filter((c) => c.type === 'finish-step').length,
      );
    },
  );

  it('maps plans, file changes, terminal output and usage to data parts', async () => {
    const codex = translateAll(recordedRows('codex-acp'));
    expect(codex.some((c) => c.type === 'data-terminal')).toBe(true);
    const builtin = await chunksToMessage(translateAll(recordedRows('builtin')));
    const types = new Set(builtin?.parts.map((p) => p.type));
    expect([...types]).toEqual(expect.arrayContaining(['data-plan', 'data-file-change', 'data-usage']));
    const plan = builtin?.parts.find((p) => p.type === 'data-plan') as {
      data: { entries: { status: string }[] };
    };
    // One part per plan, replaced in place by each update: the last plan wins.
    expect(builtin?.parts.filter((p) => p.type === 'data-plan')).toHaveLength(1);
    expect(plan.data.entries.map((e) => e.status)).toEqual(['completed', 'completed']);
  });

  it('pauses at an approval and continues the same message after it, without doubling anything', async () => {
    const rows = recordedRows('claude-agent-acp');
    const asked = rows.findIndex((r) => r.event.kind === 'approval.requested');
    const first = new UiMessageTranslator({ threadId: 'thr', runId: 'run_fixture' });
    const part1 = first.start();
    for (const row of rows.slice(0, asked + 1)) part1.push(...first.push(row));
    expect(first.pendingApprovals).toBe(1);
    part1.push(...first.pause());
    await expectValidChunks(part1);
    const paused = (await chunksToMessage(part1)) as UIMessage;
    const tool = paused.parts.find(isToolUIPart);
    expect(tool?.state).toBe('approval-requested');
    expect(paused.metadata).toMatchObject({ agentlane: { runId: 'run_fixture', deliverySeq: asked + 1 } });

    // The continuation: a fresh translator seeded with what the client holds, then the rest of the run.
    const second = new UiMessageTranslator({ threadId: 'thr', runId: 'run_fixture' });
    for (const row of rows.slice(0, asked + 1)) second.push(row);
    second.forgetOpenParts();
    const part2 = second.start();
    for (const row of rows.slice(asked + 1)) part2.push(...second.push(row));
    part2.push(...second.finish());
    await expectValidChunks(part2);
    expect(part2.some((c) => c.type === 'text-delta' && c.delta === 'I ')).toBe(false);
    const stream = new ReadableStream<UiChunk>({
      start(c) {
        for (const chunk of part2) c.enqueue(chunk);
        c.close();
      },
    });
    let final: UIMessage | undefined;
    for await (const m of readUIMessageStream({ message: paused, stream, terminateOnError: true })) final = m;
    const whole = (await chunksToMessage(translateAll(rows))) as UIMessage;
    expect(textOf(final as UIMessage)).toBe(textOf(whole));
    expect(final?.parts.find(isToolUIPart)?.state).toBe('output-available');
  });

  it.each(Object.keys(RECORDED) as RecordedName[])(
    '%s: a stream cut after any row, continued from it, has the steps of the uninterrupted one',
    async (name) => {
      const rows = recordedRows(name);
      const whole = (await chunksToMessage(translateAll(rows))) as UIMessage;
      const steps = (m: UIMessage) => m.parts.filter((p) => p.type === 'step-start').length;
      const reasoningOf = (m: UIMessage) =>
        m.parts.flatMap((p) => (p.type === 'reasoning' ? [p.text] : [])).join('');
      let checked = 0;
      for (let k = 1; k < rows.length; k++) {
        const first = new UiMessageTranslator({ threadId: 'thr', runId: 'run_fixture' });
        const held = first.start();
        for (const row of rows.slice(0, k)) held.push(...first.push(row));
        // At a pending approval a live stream pauses, which ends the step (tested above).
        if (first.pendingApprovals > 0) continue;
        // The continuation, as `GET …/stream?after=` makes it: seeded with what the client holds.
        const second = new UiMessageTranslator({ threadId: 'thr', runId: 'run_fixture' });
        for (const row of rows.slice(0, k)) second.push(row);
        second.forgetOpenParts();
        const rest = second.start();
        for (const row of rows.slice(k)) rest.push(...second.push(row));
        rest.push(...second.finish());
        const message = await continueMessage((await chunksToMessage(held)) as UIMessage, rest);
        expect(steps(message), `${name} cut after row ${k}`).toBe(steps(whole));
        expect(textOf(message), `${name} cut after row ${k}`).toBe(textOf(whole));
        expect(reasoningOf(message), `${name} cut after row ${k}`).toBe(reasoningOf(whole));
        checked++;
      }
      expect(checked).toBeGreaterThan(rows.length / 2);
    },
  );

  it('skips revisions of events already sent and ignores the user prompt', () => {
    const rows = recordedRows('claude-agent-acp');
    const t = new UiMessageTranslator({ threadId: 'thr', runId: 'run_fixture' });
    const once = rows.flatMap((r) => t.push(r));
    const again = rows.flatMap((r) => t.push({ ...r, deliverySeq: r.deliverySeq + rows.length }));
    expect(once.length).toBeGreaterThan(0);
    expect(again).toEqual([]);
    expect(once.some((c) => c.type === 'text-delta' && c.delta.startsWith('Create hello.txt'))).toBe(false);
  });

  it('streamed tool input in the append form: each inputDelta is one tool-input-delta, then the whole input', async () => {
    const chunks = translateAll(appendInputRows());
    await expectValidChunks(chunks);
    expect(chunks.filter((c) => c.type === 'tool-input-delta').map((c) => c.inputTextDelta)).toEqual([
      '{"path":"a.txt",',
      '"content":"hi"}',
    ]);
    expect(chunks.find((c) => c.type === 'tool-input-available')).toMatchObject({
      toolCallId: 'c1',
      input: { path: 'a.txt', content: 'hi' },
    });
  });

  it('a denied approval ends its tool call as output-denied; a fatal error becomes an error chunk', async () => {
    const t = new UiMessageTranslator({ threadId: 't', runId: 'r' });
    const chunks = [
      ...t.start(),
      ...t.push(
        ev(1, 'tool.started', {
          toolCallId: 'c1',
          name: 'bash',
          kind: 'execute',
          input: { command: 'rm -rf /' },
          status: 'pending',
        }),
      ),
      ...t.push(
        ev(2, 'approval.requested', {
          approvalId: 'a1',
          toolCallId: 'c1',
          title: 'Run rm',
          subject: { kind: 'command' },
          options: [{ optionId: 'no', label: 'No', kind: 'reject_once' }],
        }),
      ),
      ...t.push(
        ev(3, 'approval.resolved', {
          approvalId: 'a1',
          outcome: 'selected',
          optionId: 'no',
          decision: 'reject_once',
        }),
      ),
      ...t.push(ev(4, 'tool.completed', { toolCallId: 'c1', status: 'failed', error: 'denied' })),
      ...t.push(ev(5, 'harness.error', { code: 'engine', message: 'engine crashed', fatal: true })),
      ...t.finish('the run failed'),
    ];
    await expectValidChunks(chunks);
    expect(chunks.filter((c) => c.type === 'tool-output-denied')).toHaveLength(1);
    expect(chunks.filter((c) => c.type === 'tool-output-error')).toHaveLength(0);
    expect(chunks.filter((c) => c.type === 'error')).toEqual([
      { type: 'error', errorText: 'engine crashed' },
    ]);
    expect(chunks[chunks.length - 1]).toMatchObject({ type: 'finish', finishReason: 'error' });
  });

  it('progress() says where the message is (deliverySeq) once per batch of rows, never after the end', async () => {
    const t = new UiMessageTranslator({ threadId: 't', runId: 'r' });
    expect(t.progress()).toEqual([]);
    t.push(ev(1, 'turn.started', {}));
    t.push(ev(2, 'turn.started', {}));
    const chunks = t.progress();
    await expectValidChunks(chunks);
    expect(chunks).toEqual([
      {
        type: 'message-metadata',
        messageMetadata: { agentlane: { threadId: 't', runId: 'r', deliverySeq: 2 } },
      },
    ]);
    expect(t.progress()).toEqual([]);
    t.finish();
    t.push(ev(3, 'turn.started', {}));
    expect(t.progress()).toEqual([]);
  });

  it('a run that failed after its turn ended with stopReason error still sends an error chunk', async () => {
    const t = new UiMessageTranslator({ threadId: 't', runId: 'r' });
    const chunks = [
      ...t.start(),
      ...t.push(ev(1, 'turn.completed', { stopReason: 'error' })),
      ...t.finish('the model call failed'),
    ];
    await expectValidChunks(chunks);
    expect(chunks.filter((c) => c.type === 'error')).toEqual([
      { type: 'error', errorText: 'the model call failed' },
    ]);
    expect(chunks[chunks.length - 1]).toMatchObject({ type: 'finish', finishReason: 'error' });
  });

  it('a question is a data-question part, pending then resolved with its outcome', async () => {
    const chunks = translateAll(recordedRows('builtin-question'));
    await expectValidChunks(chunks);
    const questions = chunks.filter((c) => c.type === 'data-question') as {
      id: string;
      data: { status: string };
    }[];
    expect(questions.length).toBeGreaterThanOrEqual(2);
    expect(questions[0]?.data.status).toBe('pending');
    expect(questions.at(-1)?.id).toBe(questions[0]?.id);
    expect(questions.at(-1)?.data.status).toBe('answered');
  });

  it('a sub-agent is a data-child part, running then completed', async () => {
    const chunks = translateAll(recordedRows('builtin-subagent'));
    await expectValidChunks(chunks);
    const children = chunks.filter((c) => c.type === 'data-child') as {
      id: string;
      data: { status: string };
    }[];
    expect(children.length).toBeGreaterThanOrEqual(2);
    expect(children[0]?.data.status).toBe('running');
    expect(new Set(children.map((c) => c.id)).size).toBe(1);
    expect(children.at(-1)?.data.status).toBe('completed');
  });
});
