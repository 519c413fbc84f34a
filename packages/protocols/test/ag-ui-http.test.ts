import { HttpAgent } from '@ag-ui/client';
import { type BaseEvent, EventType, type Interrupt, type RunAgentInput } from '@ag-ui/core';
import { afterEach, describe, expect, it } from 'vitest';
import { expectValidAgUi, isTerminal, readFrames } from './support/ag-ui-check';
import { type Stack, startStack } from './support/stack';

const PATH = '/protocols/ag-ui';

/** HttpAgent as the real client; every event it applied is kept (it runs AG-UI's verifier itself). */
function agentFor(stack: Stack, threadId: string) {
  const agent = new HttpAgent({ url: `${stack.api}${PATH}`, threadId });
  const runs: BaseEvent[][] = [];
  agent.subscribe({
    onEvent: ({ event }) => {
      if (event.type === EventType.RUN_STARTED) runs.push([]);
      runs[runs.length - 1]?.push(event);
    },
  });
  return { agent, runs };
}

const finishedOf = (events: BaseEvent[]) =>
  events.find((e) => e.type === EventType.RUN_FINISHED) as
    | { outcome?: { type: string; interrupts?: Interrupt[] } }
    | undefined;

const assistantText = (agent: HttpAgent) =>
  agent.messages
    .flatMap((m) => (m.role === 'assistant' && typeof m.content === 'string' ? [m.content] : []))
    .join('');

const input = (threadId: string, runId: string, text: string, engine: string): RunAgentInput => ({
  threadId,
  runId,
  messages: [{ id: `u-${runId}`, role: 'user', content: text }],
  tools: [],
  context: [],
  forwardedProps: { engine },
});

const post = (stack: Stack, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${stack.api}${PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify(body),
  });

describe('AG-UI over the lane (HttpAgent as the client)', () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.stop();
    stack = undefined;
  });

  it('built-in engine: the approval is an interrupt, resume answers it, the thread snapshot matches', async () => {
    stack = await startStack([
      {
        text: 'Writing it.',
        toolCalls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: 'hi\n' }, id: 'call_w1' }],
      },
      { text: 'Done: hello.txt holds hi.' },
    ]);
    const { agent, runs } = agentFor(stack, 'thr-builtin');
    agent.addMessage({ id: 'u1', role: 'user', content: 'Create hello.txt' });
    await agent.runAgent({ forwardedProps: { engine: 'builtin' } });
    const first = runs[0] ?? [];
    await expectValidAgUi(first);
    expect(first[1]?.type).toBe(EventType.MESSAGES_SNAPSHOT);
    const outcome = finishedOf(first)?.outcome;
    expect(outcome?.type).toBe('interrupt');
    const interrupt = outcome?.interrupts?.[0] as Interrupt;
    expect(interrupt).toMatchObject({ reason: 'tool_approval', toolCallId: 'call_w1' });

    await agent.runAgent({
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }],
    });
    const second = runs[1] ?? [];
    await expectValidAgUi(second);
    expect(finishedOf(second)?.outcome?.type).toBe('success');
    expect(assistantText(agent)).toBe('Writing it.Done: hello.txt holds hi.');
    expect(agent.messages.find((m) => m.role === 'tool')).toMatchObject({ toolCallId: 'call_w1' });
    expect(agent.state).toMatchObject({ usage: { turn: { scope: 'turn' } } });

    // Another client connecting to the thread gets the same messages in its MESSAGES_SNAPSHOT.
    const { agent: other, runs: otherRuns } = agentFor(stack, 'thr-builtin');
    await other.runAgent();
    await expectValidAgUi(otherRuns[0] ?? []);
    expect(other.messages).toEqual(agent.messages);
    // The user message keeps the id its client gave it, in every snapshot.
    expect(other.messages[0]).toMatchObject({ id: 'u1', role: 'user', content: 'Create hello.txt' });
  });

  it('a resume payload whose optionId contradicts its approved flag is 400 naming the optionId', async () => {
    stack = await startStack([
      {
        text: 'Writing it.',
        toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a\n' }, id: 'call_c1' }],
      },
      { text: 'Done.' },
    ]);
    const { agent, runs } = agentFor(stack, 'thr-contradict');
    agent.addMessage({ id: 'u1', role: 'user', content: 'Create a.txt' });
    await agent.runAgent({ forwardedProps: { engine: 'builtin' } });
    const interrupt = finishedOf(runs[0] ?? [])?.outcome?.interrupts?.[0] as Interrupt;
    const options = (interrupt.metadata as { agentlane: { options: { optionId: string; kind: string }[] } })
      .agentlane.options;
    const reject = options.find((o) => o.kind.startsWith('reject'))?.optionId as string;
    const resume = (payload: unknown) => ({
      ...input('thr-contradict', 'agrun-c2', 'unused', 'builtin'),
      messages: [],
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload }],
    });
    const res = await post(stack, resume({ approved: true, optionId: reject }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { field: string } }).error.field).toBe(
      'body.resume[0].payload.optionId',
    );
    // Nothing was answered: the agreeing answer still decides the approval.
    const ok = await readFrames(await post(stack, resume({ approved: false, optionId: reject })));
    expect(ok.at(-1)?.event.type).toBe(EventType.RUN_FINISHED);
  });

  it('replay: a recorded Claude Code session through HttpAgent, reasoning and the tool result included', async () => {
    stack = await startStack([]);
    const { agent, runs } = agentFor(stack, 'thr-replay');
    agent.addMessage({ id: 'u1', role: 'user', content: 'Create hello.txt' });
    await agent.runAgent({ forwardedProps: { engine: 'replay' } });
    await expectValidAgUi(runs[0] ?? []);
    expect(finishedOf(runs[0] ?? [])?.outcome?.type).toBe('success');
    expect(assistantText(agent)).toBe(
      'I will create hello.txt now.Done: hello.txt was written. (final answer from fake model)',
    );
    expect(agent.messages.some((m) => m.role === 'reasoning')).toBe(true);
    expect(agent.messages.some((m) => m.role === 'tool')).toBe(true);
  });

  it('every frame has an id; a reconnect with Last-Event-ID continues with no gap and no duplicate', async () => {
    stack = await startStack([]);
    const body = input('thr-reconnect', 'agrun-1', 'Create hello.txt', 'replay');
    const whole = await readFrames(await post(stack, body));
    expect(isTerminal(whole[whole.length - 1]?.event as BaseEvent)).toBe(true);
    expect(whole.every((f) => typeof f.id === 'string' && f.id.length > 0)).toBe(true);
    expect(new Set(whole.map((f) => f.id)).size).toBe(whole.length);
    await expectValidAgUi(whole.map((f) => f.event));

    // The same request again (the same AG-UI runId is the same agentlane run), dropped after 7 frames …
    const cut = await readFrames(await post(stack, body), 7);
    expect(cut).toHaveLength(7);
    // … and continued from the last frame it got.
    const rest = await readFrames(await post(stack, body, { 'last-event-id': cut[6]?.id ?? '' }));
    expect([...cut, ...rest]).toEqual(whole);
    // A reconnect after the terminal frame gets nothing more.
    const after = await readFrames(
      await post(stack, body, { 'last-event-id': whole[whole.length - 1]?.id ?? '' }),
    );
    expect(after).toEqual([]);
  });

  it('a Last-Event-ID resumes only the run it was sent in: with another runId it is refused, nothing starts', async () => {
    stack = await startStack([]);
    const first = input('thr-other-run', 'agrun-a', 'Create hello.txt', 'replay');
    const framesA = await readFrames(await post(stack, first));
    const second = { ...first, runId: 'agrun-b', messages: [{ id: 'u-b', role: 'user', content: 'Again' }] };
    expect((await readFrames(await post(stack, second))).at(-1)?.event.type).toBe(EventType.RUN_FINISHED);
    // A frame of a row of run A; a stream's opening frame (its snapshot row, no run's row).
    const rowFrame = framesA.find((f) => f.event.type === EventType.TEXT_MESSAGE_CONTENT)?.id ?? '';
    const opening = framesA[0]?.id ?? '';
    const cases: [string, string][] = [
      ['agrun-new', rowFrame],
      ['agrun-new', opening],
      ['agrun-b', rowFrame],
    ];
    for (const [runId, id] of cases) {
      const res = await post(stack, { ...second, runId }, { 'last-event-id': id });
      expect(res.status, `${runId} ${id}`).toBe(400);
      const { error } = (await res.json()) as { error: { field: string; message: string } };
      expect(error.field).toBe('headers.last-event-id');
      expect(error.message).toMatch(runId === 'agrun-new' ? /started no run/ : /another run.*agrun-a/);
    }
    expect(await stack.store.listRuns('thr-other-run')).toHaveLength(2);
    // The run the id was sent in still resumes, by its own runId.
    const rest = await readFrames(await post(stack, first, { 'last-event-id': rowFrame }));
    const at = framesA.findIndex((f) => f.id === rowFrame);
    expect(rest).toEqual(framesA.slice(at + 1));
  });

  it('a Last-Event-ID that is no frame of the stream (a made-up snapshot, row or index) is refused', async () => {
    stack = await startStack([]);
    const body = input('thr-no-frame', 'agrun-1', 'Create hello.txt', 'replay');
    const whole = await readFrames(await post(stack, body));
    const ids = whole.map((f) => (f.id ?? '').split('-').map(Number) as [number, number, number]);
    // The stream of a run on a new thread: snapshotted at row 0, each later frame of a row of its run.
    expect(ids.every(([snapshot]) => snapshot === 0)).toBe(true);
    const rows = [...new Set(ids.map(([, row]) => row).filter((row) => row > 0))];
    const [first, second] = rows as [number, number];
    const later = rows[5] as number;
    const last = ids.at(-1) as [number, number, number];
    const framesOf = (row: number) => ids.filter(([, r]) => r === row).length;
    const refused: [string, RegExp][] = [
      // An index past what the row produced (its frames are re-derived from the store).
      [`0-${later}-${framesOf(later)}`, /no frame of this stream/],
      [`0-${later}-999`, /no frame of this stream/],
      [`0-0-3`, /no frame of this stream/],
      // One past the frames that end the stream.
      [`0-${last[1]}-${last[2] + 1}`, /no frame of this stream/],
      // A snapshot this run's stream never had: past its first row (the server would then write ids with it).
      [`${first}-${later}-0`, /snapshot row .* not that of a stream of runId "agrun-1"/],
      [`${second}-${second}-0`, /snapshot row .* not that of a stream of runId "agrun-1"/],
      // A row before the id's own snapshot.
      [`${later}-${first}-0`, /before its stream's snapshot row/],
    ];
    for (const [id, message] of refused) {
      const res = await post(stack, body, { 'last-event-id': id });
      expect(res.status, id).toBe(400);
      const { error } = (await res.json()) as { error: { field: string; message: string } };
      expect(error, id).toMatchObject({
        field: 'headers.last-event-id',
        message: expect.stringMatching(message),
      });
    }
    // Also without a user message (a client following the thread): an index its row never had.
    const follow = { ...body, runId: 'agrun-follow', messages: [] };
    const res = await post(stack, follow, { 'last-event-id': `0-${later}-999` });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { field: string } }).error.field).toBe('headers.last-event-id');
    // Nothing was started, and the ids the stream did send still resume it exactly.
    expect(await stack.store.listRuns('thr-no-frame')).toHaveLength(1);
    for (const at of [
      2,
      3,
      ids.findIndex(([, row]) => row === later) + framesOf(later) - 1,
      whole.length - 2,
    ]) {
      const rest = await readFrames(await post(stack, body, { 'last-event-id': whole[at]?.id ?? '' }));
      expect(rest, whole[at]?.id).toEqual(whole.slice(at + 1));
    }
  });

  it('the history and state HttpAgent posts back may hold what the model said and be long; the prompt is checked', async () => {
    stack = await startStack([]);
    const said = `nul \u0000 lone \ud800 ${'x'.repeat(2_000_000)}`;
    const body = (prompt: string, runId: string) => ({
      ...input('thr-history', runId, prompt, 'replay'),
      messages: [
        { id: 'u1', role: 'user', content: 'first' },
        { id: 'a1', role: 'assistant', content: said },
        { id: `u-${runId}`, role: 'user', content: prompt },
      ],
      state: { plan: { entries: [{ content: said }] } },
    });
    const ok = await post(stack, body('next', 'agrun-h1'));
    expect(ok.status).toBe(200);
    await ok.text();
    const refused = await post(stack, body('with \u0000 in it', 'agrun-h2'));
    expect(refused.status).toBe(400);
    const { error } = (await refused.json()) as { error: { field: string; message: string } };
    expect(error.field).toBe('body.messages[2].content');
    expect(error.message).toMatch(/NUL/);
  });

  it('a new thread starts with a user message: no messages, an assistant or a tool message last is a 400', async () => {
    stack = await startStack([]);
    const base = input('thr-no-user', 'agrun-x', 'unused', 'replay');
    const lasts: [unknown[], RegExp][] = [
      [[], /messages is empty/],
      [[{ id: 'a1', role: 'assistant', content: 'Hello' }], /role "assistant"/],
      [
        [
          { id: 'u1', role: 'user', content: 'Run it' },
          {
            id: 'a1',
            role: 'assistant',
            toolCalls: [{ id: 'c1', type: 'function', function: { name: 'x', arguments: '{}' } }],
          },
          { id: 't1', role: 'tool', toolCallId: 'c1', content: 'done' },
        ],
        /role "tool"/,
      ],
      [[{ id: 'u1', role: 'user', content: '   ' }], /user message has no text/],
    ];
    for (const [messages, message] of lasts) {
      const res = await post(stack, { ...base, messages });
      expect(res.status, JSON.stringify(messages)).toBe(400);
      const { error } = (await res.json()) as { error: { field: string; message: string } };
      expect(error).toMatchObject({ field: 'body.messages', message: expect.stringMatching(message) });
    }
    expect(await stack.store.getThread('thr-no-user')).toBeNull();
    // On a thread that exists such a request follows its active run (none here): the snapshot, then the end.
    await readFrames(await post(stack, base));
    const frames = await readFrames(
      await post(stack, { ...base, runId: 'agrun-y', messages: lasts[1]?.[0] }),
    );
    expect(frames.map((f) => f.event.type)).toEqual([
      EventType.RUN_STARTED,
      EventType.MESSAGES_SNAPSHOT,
      EventType.STATE_SNAPSHOT,
      EventType.RUN_FINISHED,
    ]);
  });

  it('replay: two turns on one thread have their own message and tool call ids', async () => {
    stack = await startStack([]);
    const { agent, runs } = agentFor(stack, 'thr-replay-twice');
    for (const text of ['Create hello.txt', 'Once more']) {
      agent.addMessage({ id: `u-${text.length}`, role: 'user', content: text });
      await agent.runAgent({ forwardedProps: { engine: 'replay' } });
    }
    for (const run of runs) await expectValidAgUi(run);
    const ids = agent.messages.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    const started = runs.map((run) =>
      run.flatMap((e) =>
        e.type === EventType.TOOL_CALL_START ? [(e as unknown as { toolCallId: string }).toolCallId] : [],
      ),
    );
    expect(started.map((s) => s.length)).toEqual([1, 1]);
    expect(started[1]?.[0]).not.toBe(started[0]?.[0]);
    expect(agent.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
    // The first turn keeps the recorded ids.
    expect(started[0]).toEqual(['toolu_fake_1']);
  });

  it('a run that fails ends its AG-UI run with RUN_ERROR (HttpAgent sees the error)', async () => {
    stack = await startStack([{ error: { status: 400, message: 'the provider refused' } }]);
    const frames = await readFrames(
      await post(stack, input('thr-fail', 'agrun-fail', 'fail please', 'builtin')),
    );
    const last = frames[frames.length - 1]?.event as { type: string; message?: string; code?: string };
    expect(last.type).toBe(EventType.RUN_ERROR);
    expect(last.message).toBeTruthy();
    expect(frames.some((f) => f.event.type === EventType.RUN_FINISHED)).toBe(false);
    await expectValidAgUi(frames.map((f) => f.event));
    const { agent, runs } = agentFor(stack, 'thr-fail-2');
    agent.addMessage({ id: 'u-fail', role: 'user', content: 'fail again' });
    await agent.runAgent({ forwardedProps: { engine: 'builtin' } }).catch(() => {});
    expect(runs.at(-1)?.at(-1)?.type).toBe(EventType.RUN_ERROR);
  });

  it('a request answered at once by someone else (a paced replay) is not an interrupt', async () => {
    stack = await startStack([]);
    const frames = await readFrames(
      await post(stack, input('thr-paced', 'agrun-paced', 'Run a command', 'replay-paced')),
    );
    const last = frames.at(-1)?.event as { type: string; outcome?: { type: string } };
    expect(last.type).toBe(EventType.RUN_FINISHED);
    expect(last.outcome).toEqual({ type: 'success' });
    expect(frames.some((f) => f.event.type === EventType.TOOL_CALL_RESULT)).toBe(true);
    await expectValidAgUi(frames.map((f) => f.event));
  });

  it('the same client runId on two threads is two runs (a runId names a run within its thread)', async () => {
    stack = await startStack([]);
    for (const threadId of ['thr-same-a', 'thr-same-b']) {
      const res = await post(stack, input(threadId, 'agrun-same', 'Create hello.txt', 'replay'));
      expect(res.status, threadId).toBe(200);
      const frames = await readFrames(res);
      expect(frames.at(-1)?.event.type, threadId).toBe(EventType.RUN_FINISHED);
    }
  });

  // A probe saw a request naming another engine answered by the thread's own engine, with no word of it.
  it('a thread keeps its engine: a request naming another one is 409 naming forwardedProps.engine', async () => {
    stack = await startStack([]);
    const first = await post(stack, input('t-engine', 'r1', 'Create hello.txt', 'replay'));
    expect(first.status).toBe(200);
    await readFrames(first);
    const other = await post(stack, input('t-engine', 'r2', 'again', 'builtin'));
    expect(other.status).toBe(409);
    const { error } = (await other.json()) as { error: { field: string; message: string } };
    expect(error.field).toBe('body.forwardedProps.engine');
    expect(error.message).toMatch(/runs on engine "replay", not "builtin"/);
    expect(await stack.store.listRuns('t-engine')).toHaveLength(1);
  });

  it('bad requests get a 400 with the field; a bad Last-Event-ID too', async () => {
    stack = await startStack([]);
    const cases: [unknown, Record<string, string>, string][] = [
      [{ threadId: 't' }, {}, 'body.runId'],
      [{ ...input('bad id!', 'r', 'x', 'replay') }, {}, 'body.threadId'],
      [{ ...input('t1', 'r', 'x', 'nope') }, {}, 'body.forwardedProps.engine'],
      [{ ...input('t2', 'r', 'x', 'replay') }, { 'last-event-id': 'nope' }, 'headers.last-event-id'],
      // Not a spelling this server writes, and a row the (new) thread does not have.
      [{ ...input('t5', 'r', 'x', 'replay') }, { 'last-event-id': '00-01-0' }, 'headers.last-event-id'],
      [{ ...input('t6', 'r', 'x', 'replay') }, { 'last-event-id': '0-99999-0' }, 'headers.last-event-id'],
      [{ ...input('t7', '', 'x', 'replay') }, {}, 'body.runId'],
      [{ ...input('t8', 'r'.repeat(201), 'x', 'replay') }, {}, 'body.runId'],
      [
        { ...input('t3', 'r', 'x', 'replay'), resume: [{ interruptId: 'missing', status: 'resolved' }] },
        {},
        'body.resume[0].interruptId',
      ],
      // The REST run route's bound on a prompt holds here too.
      [{ ...input('t4', 'r', 'x'.repeat(200_001), 'replay') }, {}, 'body.messages[0].content'],
    ];
    for (const [body, headers, field] of cases) {
      const res = await post(stack, body, headers);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: { field: string } }).error.field).toBe(field);
    }
  });
});
