import { StreamFrames } from '@agentlane/client/testing';
import { noCapabilities, type StreamEvent } from '@agentlane/contract';

/** StreamEvents of a recorded-looking thread: eventIds per run, `identity.provider` "recorded". */
export class FrameWriter extends StreamFrames {
  constructor(threadId: string) {
    super({
      threadId,
      runId: 'run-1',
      turnId: 'turn-1',
      provider: 'recorded',
      eventId: (runId, seq) => `${runId}-e${seq}`,
      startTime: new Date(Date.UTC(2026, 0, 1, 9)),
    });
  }
}

export const LONG_ANSWER = [
  '## Result',
  '',
  'The build **passes** now. Here is the fix:',
  '',
  '```ts',
  'export function add(a: number, b: number): number {',
  '  return a + b;',
  '}',
  '```',
  '',
  '| file | change |',
  '| --- | --- |',
  '| src/add.ts | fixed |',
  '',
  'Done.',
].join('\n');

export const DIFF = [
  '--- a/src/add.ts',
  '+++ b/src/add.ts',
  '@@ -1,3 +1,3 @@',
  ' export function add(a: number, b: number): number {',
  '-  return a - b;',
  '+  return a + b;',
  ' }',
  '',
].join('\n');

const artifact = (id: string, text: string, contentType = 'text/plain') => ({
  artifact: { id, bytes: text.length, sha256: '0'.repeat(64), contentType },
  preview: text,
  truncated: false,
});

/** A thread that uses every surface of the timeline. */
export function allSurfacesThread(threadId: string): { frames: StreamEvent[]; finalText: string } {
  const w = new FrameWriter(threadId);
  w.runStatus('running');
  w.emit({
    kind: 'session.started',
    payload: {
      provider: 'recorded',
      origin: 'new',
      generation: 1,
      capabilities: {
        ...noCapabilities(),
        plans: true,
        approvals: true,
        questions: true,
        usage: true,
        commands: true,
      },
    },
  });
  w.emit({
    kind: 'session.metadata',
    payload: { title: 'Fix the adder', model: { id: 'model-a', name: 'Model A' } },
  });
  w.emit({
    kind: 'commands.updated',
    payload: {
      commands: [
        { name: 'review', description: 'Review the diff' },
        { name: 'test', description: 'Run tests' },
      ],
    },
  });
  w.emit({
    kind: 'mode.updated',
    payload: {
      currentModeId: 'code',
      availableModes: [
        { id: 'code', name: 'Code' },
        { id: 'ask', name: 'Ask' },
      ],
    },
  });
  w.emit({ kind: 'turn.started', payload: { prompt: 'Fix the failing add test' } });
  w.emit({
    kind: 'context.marker',
    payload: { markerKind: 'rule', phase: 'point', label: 'AGENTS.md loaded' },
  });
  w.emit({
    kind: 'reasoning.delta',
    payload: { reasoningId: 'r1', delta: 'The test says 1+2 should be 3; ' },
  });
  w.emit({ kind: 'reasoning.delta', payload: { reasoningId: 'r1', delta: 'the function subtracts.' } });
  w.emit({
    kind: 'reasoning.completed',
    payload: {
      reasoningId: 'r1',
      text: 'The test says 1+2 should be 3; the function subtracts.',
      durationMs: 2300,
    },
  });
  const plan = w.emit({
    kind: 'plan.updated',
    payload: {
      entries: [
        { content: 'Read the test', status: 'in_progress' },
        { content: 'Fix add()', status: 'pending' },
      ],
    },
  });
  for (const [id, name] of [
    ['t-read-1', 'Read src/add.ts'],
    ['t-read-2', 'Read test/add.test.ts'],
  ] as const) {
    w.emit({
      kind: 'tool.started',
      payload: {
        toolCallId: id,
        name: 'read',
        title: name,
        kind: 'read',
        input: { path: name },
        status: 'running',
      },
    });
    w.emit({
      kind: 'tool.completed',
      payload: { toolCallId: id, status: 'completed', output: 'export function add…' },
    });
  }
  w.emit(
    {
      kind: 'plan.updated',
      payload: {
        entries: [
          { content: 'Read the test', status: 'completed' },
          { content: 'Fix add()', status: 'in_progress' },
        ],
      },
    },
    { eventId: plan.event.eventId, revision: 2 },
  );
  w.emit({
    kind: 'approval.requested',
    payload: {
      approvalId: 'ap-1',
      toolCallId: 't-edit',
      title: 'Edit src/add.ts?',
      subject: { kind: 'file_edit', path: 'src/add.ts', diff: artifact('diff-1', DIFF, 'text/x-diff') },
      options: [
        { optionId: 'allow', label: 'Allow', kind: 'allow_once' },
        { optionId: 'reject', label: 'Reject', kind: 'reject_once' },
      ],
    },
  });
  const approvalPoint = w.frames.length;
  w.emit({
    kind: 'approval.resolved',
    payload: {
      approvalId: 'ap-1',
      outcome: 'selected',
      optionId: 'allow',
      decision: 'allow_once',
      answeredBy: 'local user',
      answeredAt: '2026-01-01T09:01:00.000Z',
    },
  });
  w.emit({
    kind: 'file.changed',
    payload: {
      path: 'src/add.ts',
      change: 'modified',
      toolCallId: 't-edit',
      diff: artifact('diff-1', DIFF, 'text/x-diff'),
      additions: 1,
      deletions: 1,
    },
  });
  w.emit({
    kind: 'tool.started',
    payload: {
      toolCallId: 't-run',
      name: 'bash',
      title: 'npm test',
      kind: 'execute',
      input: { command: 'npm test' },
      status: 'running',
    },
  });
  w.emit({
    kind: 'terminal.output',
    payload: {
      terminalId: 'term-1',
      toolCallId: 't-run',
      stream: 'stdout',
      command: 'npm test',
      chunk: '\u001b[32m✓\u001b[0m add adds\n',
    },
  });
  w.emit({
    kind: 'terminal.output',
    payload: {
      terminalId: 'term-1',
      toolCallId: 't-run',
      stream: 'stdout',
      chunk: '\u001b[1m1 passed\u001b[0m\n',
      exit: { code: 0 },
    },
  });
  w.emit({
    kind: 'tool.completed',
    payload: { toolCallId: 't-run', status: 'completed', output: '1 passed', durationMs: 1200 },
  });
  w.emit({
    kind: 'child.started',
    payload: { childSessionId: 'child-1', title: 'Reviewer', description: 'Reviews the change' },
  });
  w.emit(
    { kind: 'message.delta', payload: { messageId: 'cm1', partId: 'p', delta: 'Looks good to me.' } },
    { namespace: ['child-1'] },
  );
  w.emit({
    kind: 'child.completed',
    payload: { childSessionId: 'child-1', status: 'completed', summary: 'Approved the change' },
  });
  w.emit({
    kind: 'question.requested',
    payload: {
      questionId: 'q-1',
      prompt: 'Also add a test for negatives?',
      choices: [
        { id: 'yes', label: 'Yes' },
        { id: 'no', label: 'No' },
      ],
      multiple: false,
      allowFreeText: false,
    },
  });
  w.emit({
    kind: 'artifact.delivered',
    payload: {
      artifact: artifact('report-1', 'report').artifact,
      name: 'report.txt',
      description: 'Test report',
    },
  });
  w.emit({
    kind: 'harness.warning',
    payload: {
      code: 'native_frame_unknown',
      message: 'One engine frame was not understood and was kept raw.',
    },
  });
  w.streamText('m1', LONG_ANSWER);
  w.emit({ kind: 'message.completed', payload: { messageId: 'm1', role: 'assistant', text: LONG_ANSWER } });
  w.emit({
    kind: 'usage.updated',
    payload: {
      scope: 'turn',
      inputTokens: 1200,
      outputTokens: 340,
      cost: { amount: 0.0123, currency: 'USD' },
    },
  });
  w.emit({ kind: 'turn.completed', payload: { stopReason: 'end_turn', durationMs: 8200 } });
  w.runStatus('completed');
  w.canonicalized();
  void approvalPoint;
  return { frames: w.frames, finalText: LONG_ANSWER };
}

/** A thread with nothing but text: no other surface may appear. */
export function textOnlyThread(threadId: string, text = 'Hello! How can I help?'): StreamEvent[] {
  const w = new FrameWriter(threadId);
  w.emit({
    kind: 'session.started',
    payload: { provider: 'recorded', origin: 'new', generation: 1, capabilities: noCapabilities() },
  });
  w.emit({ kind: 'turn.started', payload: { prompt: 'Hi' } });
  w.streamText('m1', text);
  w.emit({ kind: 'message.completed', payload: { messageId: 'm1', role: 'assistant', text } });
  w.emit({ kind: 'turn.completed', payload: { stopReason: 'end_turn' } });
  w.canonicalized();
  return w.frames;
}
