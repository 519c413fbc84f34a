import type { ModelReply } from '@agentlane/fake-model-server';
import type { ModelApi } from '@agentlane/runtime';
import type { CorpusInput } from '../src/index';

/** One recorded turn: its input and what the fake model server answers, request by request. */
export interface CorpusScenario {
  name: string;
  input: CorpusInput;
  replies: ModelReply[];
}

/** Where each provider API lives on the fake model server (its SDK appends the rest of the path). */
const BASE_PATH: Record<ModelApi, string> = {
  'openai-chat': '/v1',
  'openai-responses': '/v1',
  anthropic: '/v1',
  google: '/v1beta',
};

const engine = (api: ModelApi, over: { plan?: boolean; maxSteps?: number } = {}): CorpusInput['engine'] => ({
  api,
  model: 'fake-model',
  basePath: BASE_PATH[api],
  plan: over.plan ?? true,
  maxSteps: over.maxSteps ?? 8,
});

const base = (name: string, description: string, over: Partial<CorpusInput>): CorpusInput => ({
  description,
  threadId: `thr_corpus_${name.replace(/-/g, '_')}`,
  turnId: `run_corpus_${name.replace(/-/g, '_')}`,
  prompt: '',
  engine: engine('openai-chat', { plan: false }),
  files: {},
  approvals: [],
  clock: { start: '2026-01-01T00:00:00.000Z', stepMs: 1000 },
  ids: { startMs: Date.parse('2026-01-01T00:00:00.000Z') },
  providerIds: { startMs: Date.parse('2026-02-01T00:00:00.000Z') },
  frameClock: { start: '2026-01-01T01:00:00.000Z', stepMs: 10 },
  ...over,
});

const plan = engine('openai-chat');

/** The plan + approved write turn, on another provider wire API. */
const writeOn = (api: ModelApi): CorpusScenario => ({
  name: `plan-write-approval-${api}`,
  input: base(
    `plan-write-approval-${api}`,
    `The plan-write-approval turn over the ${api} wire API (reasoning included), with a price table.`,
    {
      prompt: 'Create notes.txt with a first line.',
      // A price table, so usage events and ledger rows carry a cost (decimal arithmetic to round-trip).
      engine: {
        ...engine(api),
        prices: { 'fake-model': { input: 3, output: 15, reasoning: 15, cached: 0.3 } },
      },
    },
  ),
  replies: [
    { text: '1. Write notes.txt\n2. Confirm it is there' },
    {
      reasoning: 'A new file is needed.',
      toolCalls: [
        { name: 'write_file', arguments: { path: 'notes.txt', content: 'first line\n' }, id: 'call_w1' },
      ],
    },
    { text: 'I wrote notes.txt with one line.' },
  ],
});

/** The corpus: each turn exercises a different path through the stages. */
export const CORPUS_SCENARIOS: CorpusScenario[] = [
  {
    name: 'plain-answer',
    input: base('plain-answer', 'No plan, no tools: reasoning then a text answer.', {
      prompt: 'Say hello.',
    }),
    replies: [
      { reasoning: 'A greeting is enough.', text: 'Hello! What shall we work on in this workspace?' },
    ],
  },
  {
    name: 'plan-write-approval',
    input: base(
      'plan-write-approval',
      'Anchor plan, a write_file call that needs approval (allowed), the file written, an answer.',
      {
        prompt: 'Create notes.txt with a first line.',
        engine: plan,
      },
    ),
    replies: [
      { text: '1. Write notes.txt\n2. Confirm it is there' },
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'notes.txt', content: 'first line\n' }, id: 'call_w1' },
        ],
      },
      { text: 'I wrote notes.txt with one line.' },
    ],
  },
  {
    name: 'tool-error-bad-input',
    input: base(
      'tool-error-bad-input',
      'A write_file call without content: a tool error back to the model, recorded, not thrown.',
      {
        prompt: 'Write x.txt.',
      },
    ),
    replies: [
      { toolCalls: [{ name: 'write_file', arguments: { path: 'x.txt' }, id: 'call_bad' }] },
      { text: 'The write failed because no content was given.' },
    ],
  },
  {
    name: 'multi-step-loop',
    input: base(
      'multi-step-loop',
      'Plan, then four model steps: list, two tools in one step (read + search), an approved edit, the answer.',
      {
        prompt: 'Bump the version in src/app.txt.',
        engine: plan,
        files: { 'src/app.txt': 'version = 1\nname = demo\n', 'README.md': '# demo\n' },
      },
    ),
    replies: [
      { text: '1. Look around\n2. Read the app file\n3. Bump the version' },
      { text: 'Let me look around.', toolCalls: [{ name: 'list_files', arguments: {}, id: 'call_l1' }] },
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: 'src/app.txt' }, id: 'call_r1' },
          { name: 'search_files', arguments: { pattern: 'version' }, id: 'call_s1' },
        ],
      },
      {
        toolCalls: [
          {
            name: 'edit_file',
            arguments: { path: 'src/app.txt', oldText: 'version = 1', newText: 'version = 2' },
            id: 'call_e1',
          },
        ],
      },
      { text: 'Bumped the version to 2 in src/app.txt.' },
    ],
  },
  {
    name: 'rejected-command',
    input: base('rejected-command', 'A run_command call the user rejects: nothing runs, the model is told.', {
      prompt: 'Delete the build folder.',
      approvals: [{ outcome: 'selected', optionId: 'reject' }],
    }),
    replies: [
      { toolCalls: [{ name: 'run_command', arguments: { command: 'rm -rf build' }, id: 'call_rm' }] },
      { text: 'Understood, I left the build folder alone.' },
    ],
  },
  {
    name: 'step-limit',
    input: base(
      'step-limit',
      'The tool loop hits maxSteps (2): a harness.warning and a synthesized answer without tools.',
      {
        prompt: 'Keep listing files.',
        engine: engine('openai-chat', { plan: false, maxSteps: 2 }),
        files: { 'a.txt': 'a\n' },
      },
    ),
    replies: [
      { toolCalls: [{ name: 'list_files', arguments: {}, id: 'call_1' }] },
      { toolCalls: [{ name: 'list_files', arguments: {}, id: 'call_2' }] },
      { text: 'The workspace holds a.txt.' },
    ],
  },
  {
    name: 'token-budget',
    input: base(
      'token-budget',
      'The turn passes its token budget (300) after two tool steps: a harness.warning with the figures and a synthesized answer without tools.',
      {
        prompt: 'Keep reading files.',
        engine: { ...engine('openai-chat', { plan: false }), turnTokenBudget: 300 },
        files: { 'a.txt': 'a\n' },
      },
    ),
    replies: [
      {
        toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' }, id: 'call_b1' }],
        usage: { inputTokens: 120, outputTokens: 40 },
      },
      {
        toolCalls: [{ name: 'list_files', arguments: {}, id: 'call_b2' }],
        usage: { inputTokens: 150, outputTokens: 30 },
      },
      { text: 'a.txt holds one line: a.', usage: { inputTokens: 190, outputTokens: 10 } },
    ],
  },
  writeOn('openai-responses'),
  writeOn('anthropic'),
  writeOn('google'),
  {
    name: 'ask-user-question',
    input: base(
      'ask-user-question',
      'An ask_user call with choices: the user picks one, the model is told.',
      {
        prompt: 'Pick a name for the file.',
        questions: [{ outcome: 'answered', choiceIds: ['c2'] }],
      },
    ),
    replies: [
      {
        toolCalls: [
          {
            name: 'ask_user',
            arguments: { prompt: 'Which name?', choices: ['a.txt', 'b.txt'] },
            id: 'call_q1',
          },
        ],
      },
      { text: 'You picked b.txt.' },
    ],
  },
  {
    name: 'subagent-task',
    input: base(
      'subagent-task',
      'A task tool call: a sub-agent runs its own turn (list_files, answer) as a child session.',
      {
        prompt: 'Have a helper look at the files.',
        engine: { ...engine('openai-chat', { plan: false }), subagents: true },
        files: { 'a.txt': 'a\n' },
      },
    ),
    replies: [
      {
        toolCalls: [
          {
            name: 'task',
            arguments: {
              description: 'Inspect the files',
              prompt: 'List the workspace files and report them.',
            },
            id: 'call_t1',
          },
        ],
      },
      { toolCalls: [{ name: 'list_files', arguments: {}, id: 'call_c1' }] },
      { text: 'The workspace holds a.txt.' },
      { text: 'The helper found a.txt.' },
    ],
  },
];
