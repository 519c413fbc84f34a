import { idGet, idSet, makeArtifact } from '@agentlane/engine-kit';
import { noteApproval, noteEnd, noteStart } from './cutoff-rows.js';
import type { FrameHandlers, FrameOf } from './frame-types.js';
import { hashOf } from './hash.js';
import { APPROVAL_OPTIONS, markAsked, nextCount, type Step, track } from './state.js';
import { setTool } from './tool-input.js';

/** The runtime's tool calls: start, progress, end, the approvals and questions they ask, their terminals. */
export const TOOL_FRAMES: FrameHandlers<
  'tool.start' | 'tool.progress' | 'tool.end' | 'approval' | 'question' | 'terminal'
> = {
  'tool.start': toolStart,
  'tool.progress': (step, f) => {
    const n = nextCount(step);
    step.emit(`tool.progress:${f.toolCallId}:${n}`, {
      kind: 'tool.progress',
      payload: { toolCallId: f.toolCallId, status: 'running', message: f.message },
    });
  },
  'tool.end': (step, f) => {
    track(step, (t) => noteEnd(t, f));
    step.state = { ...step.state, toolsEnded: idSet(step.state.toolsEnded, f.toolCallId, true) };
    step.emit(`tool.completed:${f.toolCallId}`, {
      kind: 'tool.completed',
      payload: {
        toolCallId: f.toolCallId,
        status: f.status,
        ...(f.output !== undefined ? { output: f.output } : {}),
        ...(f.error !== undefined ? { error: f.error } : {}),
        durationMs: f.durationMs,
      },
    });
  },
  approval: (step, f) => {
    markAsked(step, f.approvalId, 'approval');
    track(step, (t) => noteApproval(t, f.toolCallId, f.approvalId));
    const diff = f.diff !== undefined ? makeArtifact(f.diff, 'text/x-diff') : undefined;
    if (diff) step.artifacts.push(diff.stored);
    step.emit(`approval.requested:${f.approvalId}`, {
      kind: 'approval.requested',
      payload: {
        approvalId: f.approvalId,
        toolCallId: f.toolCallId,
        title: f.title,
        subject: diff ? { ...f.subject, diff: diff.withPreview } : f.subject,
        input: f.input,
        options: APPROVAL_OPTIONS,
      },
    });
  },
  question: (step, f) => {
    markAsked(step, f.questionId, 'question');
    step.emit(`question.requested:${f.questionId}`, {
      kind: 'question.requested',
      payload: {
        questionId: f.questionId,
        toolCallId: f.toolCallId,
        prompt: f.prompt,
        choices: f.choices,
        multiple: f.multiple,
        allowFreeText: f.allowFreeText,
      },
    });
  },
  terminal: (step, f) => {
    const n = nextCount(step);
    step.emit(`terminal:${f.terminalId}:${n}`, {
      kind: 'terminal.output',
      payload: {
        terminalId: f.terminalId,
        toolCallId: f.toolCallId,
        stream: f.stream,
        chunk: f.chunk,
        ...(f.command ? { command: f.command } : {}),
        ...(f.exit ? { exit: f.exit } : {}),
      },
    });
  },
};

function toolStart(step: Step, f: FrameOf<'tool.start'>): void {
  track(step, (t) => noteStart(t, f, step.receivedAt));
  const known = idGet(step.state.tools, f.toolCallId);
  if (!known?.started) {
    setTool(step, f.toolCallId, { name: f.name, inputChars: 0, started: true });
    step.emit(`tool.started:${f.toolCallId}`, {
      kind: 'tool.started',
      payload: {
        toolCallId: f.toolCallId,
        name: f.name,
        kind: f.kind,
        input: f.input,
        status: 'running',
        ...(f.title ? { title: f.title } : {}),
      },
    });
    return;
  }
  // The whole input already went out with the call (tool.started or its tool.input): not again.
  const same = known.inputHash !== undefined && known.inputHash === hashOf(f.input);
  step.emit(`tool.running:${f.toolCallId}`, {
    kind: 'tool.progress',
    payload: {
      toolCallId: f.toolCallId,
      status: 'running',
      ...(same ? {} : { input: f.input }),
      ...(f.title ? { title: f.title } : {}),
    },
  });
}
