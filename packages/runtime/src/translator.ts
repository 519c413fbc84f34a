import { createHash } from 'node:crypto';
import {
  type ApprovalOptionKind,
  formatIssues,
  type JsonObject,
  type JsonValue,
  MAX_PREVIEW_CHARS,
  parseAuditableCall,
  parseCanonicalEventDraft,
  type StopReason,
  type UsageCost,
} from '@agentlane/contract';
import {
  dispatchHarnessFrame,
  engineErrorPayload,
  engineExitedError,
  finishStep,
  frameKey,
  type HarnessHandlers,
  isHarnessFrame,
  isObject,
  makeArtifact,
  type NativeFrameRecord,
  StepBuilder,
  stringOrEmpty,
  type TranslationStep,
  type Translator,
  turnStartedPayload,
} from '@agentlane/engine-kit';
import type { LimitCode } from './budget.js';
import {
  cutoffRows,
  emptyTrack,
  type LedgerTrack,
  noteAnswer,
  noteApproval,
  noteEnd,
  noteModelStart,
  noteRow,
  noteStart,
  seen,
} from './cutoff-rows.js';
import { runtimeFrameProblem } from './frame-check.js';
import type { RuntimeFrame } from './frames.js';
import { BUILTIN_PROVIDER } from './provider-id.js';

type OpenText = { id: string; text: string };

/** The translator's state: plain JSON, replaced (never mutated) by every step. */
export type RuntimeTranslatorState = {
  texts: Record<string, OpenText>;
  reasoning: Record<string, OpenText>;
  /**
   * Tool calls by id: name, the raw input text received so far and, once the whole input was sent (the
   * tool-call part), a short hash of it (so the tool's start does not send it again).
   */
  tools: Record<string, { name: string; input: string; started: boolean; inputHash?: string }>;
  warnings: number;
  usageSteps: number;
  turnStartedAt: string | null;
  stopReason: string | null;
  ended: boolean;
  /** Each sub-agent's own translator state, keyed by its namespace path joined with '/'. */
  children?: Record<string, RuntimeTranslatorState>;
  /** Approval / question ids asked inside a sub-agent → its namespace (their answers arrive at the top). */
  scoped?: Record<string, string[]>;
  /** Tool calls that have their tool.completed (the others are closed when the turn ends without them). */
  toolsEnded?: Record<string, true>;
  /** Approvals and questions asked and not answered yet, by id. */
  openAsks?: Record<string, 'approval' | 'question'>;
  /** This scope's ledger rows and started tool calls: a call cut off without a row gets one at the turn's end. */
  ledger?: LedgerTrack;
};

/**
 * How a turn whose tool loop a limit stopped ends (the limit's code is the raw stop reason): the step limit is
 * ACP's max_turn_requests, the token budget its max_tokens; a cost budget has no canonical reason of its own.
 */
const LIMIT_STOP: Record<LimitCode, StopReason> = {
  step_limit: 'max_turn_requests',
  token_budget: 'max_tokens',
  cost_budget: 'other',
};

/** Approval options the built-in engine offers; the chosen optionId maps back to its kind. */
export const APPROVAL_OPTIONS: { optionId: string; label: string; kind: ApprovalOptionKind }[] = [
  { optionId: 'allow', label: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', label: 'Reject', kind: 'reject_once' },
];

/** One built-in translation step: engine-kit's builder over this state (events carry no identity). */
type Step = StepBuilder<RuntimeTranslatorState>;

function newStep(state: RuntimeTranslatorState, key: string, receivedAt: string): Step {
  return new StepBuilder({ state, frameKey: key, receivedAt });
}

/**
 * The next number of the run-wide counter some keys of this translator end in (`warning:<n>`, `error:<n>`,
 * `terminal:<id>:<n>`, ...): the recorded corpus pins these keys, so they stay as they were.
 */
function nextCount(step: Step): number {
  const n = step.state.warnings + 1;
  step.state = { ...step.state, warnings: n };
  return n;
}

/** A harness.warning keyed by the run-wide counter (`warning:<n>`). */
function warnCounted(step: Step, code: string, message: string, detail?: JsonValue): void {
  step.emit(`warning:${nextCount(step)}`, {
    kind: 'harness.warning',
    payload: { code, message, ...(detail !== undefined ? { detail } : {}) },
  });
}

function track(step: Step, change: (t: LedgerTrack) => LedgerTrack): void {
  step.state = { ...step.state, ledger: change(step.state.ledger ?? emptyTrack('', '')) };
}

/**
 * The built-in engine's pure translator: AI SDK stream parts and the runtime's own records → canonical events.
 * Text and reasoning blocks are keyed by (step, block id) because the SDK restarts block ids every step.
 */
export const runtimeTranslator: Translator<RuntimeTranslatorState> = {
  provider: BUILTIN_PROVIDER,
  initialState: (ctx) => ({
    texts: {},
    reasoning: {},
    tools: {},
    warnings: 0,
    usageSteps: 0,
    turnStartedAt: null,
    stopReason: null,
    ended: false,
    children: {},
    scoped: {},
    ledger: emptyTrack(ctx.threadId, ctx.turnId),
  }),
  translate(record: NativeFrameRecord, state: RuntimeTranslatorState) {
    // A frame the translator cannot read (a field missing or of the wrong type) must not stop the run: the
    // step it would have made is dropped whole (state untouched) and the frame becomes a harness.warning.
    let problem: string;
    try {
      const out = translateFrame(record, state);
      const bad = invalidOutput(out);
      if (bad === null) return out;
      problem = bad;
    } catch (err) {
      problem = err instanceof Error ? err.message : String(err);
    }
    const step = newStep(state, frameKey('f', record.nativeSeq), record.receivedAt);
    const f = record.frame;
    const rt = isObject(f) ? f.rt : undefined;
    warnCounted(
      step,
      'builtin.bad_frame',
      `native frame ${record.nativeSeq} is malformed: ${problem.slice(0, 300)}`,
      {
        nativeSeq: record.nativeSeq,
        ...(typeof rt === 'string' ? { rt: rt.slice(0, 100) } : {}),
      },
    );
    return step.result();
  },
  finish(state: RuntimeTranslatorState) {
    const step = finishStep(state, { runId: '' }, '');
    if (!step.state.ended) endOpenTools(step, 'failed', 'source ended without turn.ended');
    closeOpen(step);
    if (!step.state.ended) {
      step.state = { ...step.state, ended: true };
      step.emit('turn.completed', {
        kind: 'turn.completed',
        payload: { stopReason: 'error', rawStopReason: 'source ended without turn.ended' },
      });
    }
    return step.result();
  },
};

function translateFrame(record: NativeFrameRecord, state: RuntimeTranslatorState) {
  const step = newStep(state, frameKey('f', record.nativeSeq), record.receivedAt);
  const f = record.frame;
  if (isHarnessFrame(f)) {
    dispatchHarnessFrame(step, f, HARNESS);
    return step.result();
  }
  if (!isObject(f) || typeof f.rt !== 'string') {
    warnCounted(
      step,
      'builtin.bad_frame',
      `native frame ${record.nativeSeq} is not a built-in engine frame`,
      f,
    );
    return step.result();
  }
  const problem = runtimeFrameProblem(f);
  if (problem !== null) throw new MalformedFrame(problem);
  runtimeFrame(step, f as unknown as RuntimeFrame);
  return step.result();
}

/** A built-in frame missing a field the translator reads (reported like any other malformed frame). */
class MalformedFrame extends Error {}

/**
 * What a malformed frame that did not throw would still get wrong: an event or a ledger row outside the
 * contract (a field of the wrong type). Checked with the contract's own parsers (well under 1 µs an event).
 */
function invalidOutput(out: TranslationStep<RuntimeTranslatorState>): string | null {
  for (const e of out.events) {
    const r = parseCanonicalEventDraft(e.draft);
    if (!r.ok) return `${e.draft.kind} ${formatIssues(r.errors.slice(0, 3))}`;
  }
  for (const row of out.audit ?? []) {
    const r = parseAuditableCall(row);
    if (!r.ok) return `audit row ${formatIssues(r.errors.slice(0, 3))}`;
  }
  return null;
}

/** Frames agentlane wrote into the source lane: the session, the prompt, answers, engine failures, the end. */
const HARNESS: HarnessHandlers<Step> = {
  'session.bound': (step, f) =>
    step.emit('session.started', {
      kind: 'session.started',
      payload: {
        provider: BUILTIN_PROVIDER,
        origin: f.origin,
        generation: f.generation,
        capabilities: f.capabilities,
        ...(f.nativeSessionId !== undefined ? { nativeSessionId: f.nativeSessionId } : {}),
        ...(f.cwd !== undefined ? { cwd: f.cwd } : {}),
        ...(f.agent ? { agent: f.agent } : {}),
      },
    }),
  'turn.started': (step, f) => {
    step.state = { ...step.state, turnStartedAt: step.receivedAt };
    step.emit('turn.started', { kind: 'turn.started', payload: turnStartedPayload(f) });
  },
  'approval.answered': (step, f) => {
    const where = step.state.scoped?.[`approval:${f.approvalId}`];
    if (where) {
      inScope(step, where, (sub) => HARNESS['approval.answered'](sub, f));
      return;
    }
    markAnswered(step, f.approvalId);
    track(step, (t) => noteAnswer(t, f.approvalId, f));
    const option = APPROVAL_OPTIONS.find((o) => o.optionId === f.optionId);
    const selected = f.outcome === 'selected';
    step.emit(`approval.resolved:${f.approvalId}`, {
      kind: 'approval.resolved',
      payload: {
        approvalId: f.approvalId,
        outcome: selected ? 'selected' : 'cancelled',
        ...(selected && f.optionId !== undefined ? { optionId: f.optionId } : {}),
        ...(selected && option ? { decision: option.kind } : {}),
        ...(f.answeredBy !== undefined ? { answeredBy: f.answeredBy } : {}),
        answeredAt: step.receivedAt,
      },
    });
  },
  'question.answered': (step, f) => {
    const where = step.state.scoped?.[`question:${f.questionId}`];
    if (where) {
      inScope(step, where, (sub) => HARNESS['question.answered'](sub, f));
      return;
    }
    markAnswered(step, f.questionId);
    const answered = f.outcome === 'answered';
    step.emit(`question.resolved:${f.questionId}`, {
      kind: 'question.resolved',
      payload: {
        questionId: f.questionId,
        outcome: f.outcome,
        ...(answered
          ? {
              answer: {
                choiceIds: (f.choiceIds ?? []).filter((c): c is string => typeof c === 'string'),
                ...(f.text !== undefined ? { text: f.text } : {}),
              },
            }
          : {}),
        ...(f.answeredBy !== undefined ? { answeredBy: f.answeredBy } : {}),
        answeredAt: step.receivedAt,
      },
    });
  },
  'turn.cancel_requested': () => {},
  'engine.exited': (step, f) =>
    step.emit(`error:${nextCount(step)}`, {
      kind: 'harness.error',
      payload: engineExitedError(f, 'the built-in engine'),
    }),
  'engine.error': (step, f) =>
    step.emit(`error:${nextCount(step)}`, { kind: 'harness.error', payload: engineErrorPayload(f) }),
  'turn.ended': (step, f) => {
    const outcome = f.outcome;
    if (outcome !== 'completed')
      endOpenTools(step, outcome === 'cancelled' ? 'cancelled' : 'failed', f.error || outcome);
    closeOpen(step);
    const limit = step.state.stopReason;
    const stopReason: StopReason =
      outcome === 'cancelled'
        ? 'cancelled'
        : outcome === 'failed'
          ? 'error'
          : limit && Object.hasOwn(LIMIT_STOP, limit)
            ? LIMIT_STOP[limit as LimitCode]
            : 'end_turn';
    const started = step.state.turnStartedAt;
    step.state = { ...step.state, ended: true };
    step.emit('turn.completed', {
      kind: 'turn.completed',
      payload: {
        stopReason,
        ...(step.state.stopReason && stopReason !== 'end_turn'
          ? { rawStopReason: step.state.stopReason }
          : {}),
        ...(started ? { durationMs: Math.max(0, Date.parse(step.receivedAt) - Date.parse(started)) } : {}),
      },
    });
  },
};

function markAsked(step: Step, id: string, ask: 'approval' | 'question'): void {
  step.state = { ...step.state, openAsks: { ...(step.state.openAsks ?? {}), [id]: ask } };
}

function markAnswered(step: Step, id: string): void {
  if (!step.state.openAsks?.[id]) return;
  const { [id]: _, ...rest } = step.state.openAsks;
  step.state = { ...step.state, openAsks: rest };
}

/**
 * A turn that ends without a tool call's end (failed, cancelled, or settled by crash recovery after its
 * process died mid-tool) ends that call too, so the thread never shows a tool running forever.
 */
function endOpenTools(step: Step, status: 'failed' | 'cancelled', error: string): void {
  for (const path of Object.keys(step.state.children ?? {}))
    inScope(step, path.split('/'), (sub) => endOpenTools(sub, status, error));
  // Nobody can answer an approval or a question of a turn that is over: they end cancelled, by the system.
  for (const [id, ask] of Object.entries(step.state.openAsks ?? {}))
    if (ask === 'approval')
      step.emit(`approval.resolved:${id}`, {
        kind: 'approval.resolved',
        payload: { approvalId: id, outcome: 'cancelled', answeredBy: 'system' },
      });
    else
      step.emit(`question.resolved:${id}`, {
        kind: 'question.resolved',
        payload: { questionId: id, outcome: 'cancelled', answeredBy: 'system' },
      });
  step.state = { ...step.state, openAsks: {} };
  const ended = { ...(step.state.toolsEnded ?? {}) };
  for (const toolCallId of Object.keys(step.state.tools)) {
    if (ended[toolCallId]) continue;
    ended[toolCallId] = true;
    step.emit(`tool.completed:${toolCallId}`, {
      kind: 'tool.completed',
      payload: { toolCallId, status, error },
    });
  }
  step.state = { ...step.state, toolsEnded: ended };
  // The ledger rule: every call that started gets a row, also one a crash cut off (see cutoff-rows.ts).
  const cut = cutoffRows(
    step.state.ledger ?? emptyTrack('', ''),
    status === 'failed' ? 'error' : 'cancelled',
    error,
    step.receivedAt,
  );
  step.state = { ...step.state, ledger: cut.track };
  step.audit.push(...cut.rows);
}

/** Closes text and reasoning blocks a step left open (a cancelled stream never sends their end), sub-agents' too. */
function closeOpen(step: Step): void {
  for (const path of Object.keys(step.state.children ?? {}))
    inScope(step, path.split('/'), (sub) => {
      for (const key of Object.keys(sub.state.texts)) endText(sub, key);
      for (const key of Object.keys(sub.state.reasoning)) endReasoning(sub, key);
    });
  for (const key of Object.keys(step.state.texts)) endText(step, key);
  for (const key of Object.keys(step.state.reasoning)) endReasoning(step, key);
}

/**
 * Runs `body` on a sub-agent's own state and moves what it produced into this step: event keys prefixed with
 * the child path, events tagged with the namespace (the path of child session ids), rows and artifacts as is.
 */
function inScope(step: Step, namespace: string[], body: (sub: Step) => void): void {
  const path = namespace.join('/');
  const children = step.state.children ?? {};
  const sub = newStep(
    children[path] ?? { ...runtimeTranslator.initialState(SCOPE_CTX), children: {}, scoped: {} },
    step.frameKey,
    step.receivedAt,
  );
  body(sub);
  step.state = { ...step.state, children: { ...children, [path]: sub.state } };
  for (const e of sub.events) step.events.push({ ...e, key: `child:${path}:${e.key}`, namespace });
  step.artifacts.push(...sub.artifacts);
  step.audit.push(...sub.audit);
}

const SCOPE_CTX = { threadId: '', runId: '', turnId: '', provider: BUILTIN_PROVIDER };

/** A wrapped sub-agent frame: unwrap every level, remember where its approvals and questions live. */
function childFrame(step: Step, f: Extract<RuntimeFrame, { rt: 'child' }>): void {
  const namespace: string[] = [];
  let inner: RuntimeFrame = f;
  while (inner.rt === 'child') {
    namespace.push(inner.childSessionId);
    inner = inner.frame;
  }
  const asked =
    inner.rt === 'approval'
      ? `approval:${inner.approvalId}`
      : inner.rt === 'question'
        ? `question:${inner.questionId}`
        : null;
  if (asked) step.state = { ...step.state, scoped: { ...(step.state.scoped ?? {}), [asked]: namespace } };
  // The session's model metadata is the parent's; a child's own turn does not restate it.
  if (inner.rt === 'model') return;
  const frameInScope = inner;
  inScope(step, namespace, (sub) => runtimeFrame(sub, frameInScope));
}

function endText(step: Step, key: string): void {
  const open = step.state.texts[key];
  if (!open) return;
  const { [key]: _, ...rest } = step.state.texts;
  step.state = { ...step.state, texts: rest };
  step.emit(`message.completed:${open.id}`, {
    kind: 'message.completed',
    payload: { messageId: open.id, role: 'assistant', text: open.text },
  });
}

function endReasoning(step: Step, key: string): void {
  const open = step.state.reasoning[key];
  if (!open) return;
  const { [key]: _, ...rest } = step.state.reasoning;
  step.state = { ...step.state, reasoning: rest };
  step.emit(`reasoning.completed:${open.id}`, {
    kind: 'reasoning.completed',
    payload: { reasoningId: open.id, text: open.text },
  });
}

function runtimeFrame(step: Step, f: RuntimeFrame): void {
  track(step, (t) => seen(t, step.receivedAt));
  switch (f.rt) {
    case 'part': {
      streamPart(step, f.step, f.part, f.cost);
      return;
    }
    case 'plan':
      step.emit(`plan:${step.events.length}:${JSON.stringify(f.entries).length}:${hashOf(f.entries)}`, {
        kind: 'plan.updated',
        payload: { planId: 'turn-plan', entries: f.entries },
      });
      return;
    case 'model.start':
      track(step, (t) => noteModelStart(t, f, step.receivedAt));
      return;
    case 'tool.start': {
      track(step, (t) => noteStart(t, f, step.receivedAt));
      const known = step.state.tools[f.toolCallId];
      if (!known?.started) {
        step.state = {
          ...step.state,
          tools: { ...step.state.tools, [f.toolCallId]: { name: f.name, input: '', started: true } },
        };
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
      } else {
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
      return;
    }
    case 'tool.progress': {
      const n = nextCount(step);
      step.emit(`tool.progress:${f.toolCallId}:${n}`, {
        kind: 'tool.progress',
        payload: { toolCallId: f.toolCallId, status: 'running', message: f.message },
      });
      return;
    }
    case 'tool.end':
      track(step, (t) => noteEnd(t, f));
      step.state = { ...step.state, toolsEnded: { ...(step.state.toolsEnded ?? {}), [f.toolCallId]: true } };
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
      return;
    case 'approval': {
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
      return;
    }
    case 'question':
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
      return;
    case 'terminal': {
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
      return;
    }
    case 'file': {
      const diff = makeArtifact(f.diff, 'text/x-diff');
      step.artifacts.push(diff.stored);
      step.emit(`file.changed:${f.toolCallId}:${f.path}`, {
        kind: 'file.changed',
        payload: {
          path: f.path,
          change: f.change,
          toolCallId: f.toolCallId,
          diff: diff.withPreview,
          additions: f.additions,
          deletions: f.deletions,
        },
      });
      return;
    }
    case 'artifact': {
      if ('file' in f) {
        fileArtifact(step, f);
        return;
      }
      const made = makeArtifact(
        f.encoding === 'base64' ? Buffer.from(f.content, 'base64') : f.content,
        f.contentType,
      );
      step.artifacts.push(made.stored);
      const key = `${f.toolCallId}:${made.stored.ref.id}:${f.name}`;
      step.emit(`artifact.created:${key}`, {
        kind: 'artifact.created',
        payload: {
          artifact: made.stored.ref,
          name: f.name,
          preview: made.withPreview.preview,
          toolCallId: f.toolCallId,
        },
      });
      if (f.deliver) {
        step.emit(`artifact.delivered:${key}`, {
          kind: 'artifact.delivered',
          payload: {
            artifact: made.stored.ref,
            name: f.name,
            ...(f.description !== undefined ? { description: f.description } : {}),
          },
        });
      }
      return;
    }
    case 'usage':
      step.emit(`usage:${f.usage.scope}`, { kind: 'usage.updated', payload: f.usage });
      return;
    case 'marker': {
      const n = nextCount(step);
      step.emit(`marker:${n}`, { kind: 'context.marker', payload: f.marker });
      return;
    }
    case 'warning':
      if (Object.hasOwn(LIMIT_STOP, f.code)) step.state = { ...step.state, stopReason: f.code };
      warnCounted(step, f.code, f.message, f.detail);
      return;
    case 'model':
      step.emit('session.metadata', {
        kind: 'session.metadata',
        payload: { model: { id: f.model }, availableModels: f.availableModels.map((id) => ({ id })) },
      });
      return;
    case 'audit':
      track(step, (t) => noteRow(t, f.row));
      step.audit.push(f.row);
      return;
    case 'child':
      childFrame(step, f);
      return;
    case 'child.start':
      step.emit(`child.started:${f.childSessionId}`, {
        kind: 'child.started',
        payload: {
          childSessionId: f.childSessionId,
          childRunId: f.childRunId,
          parentToolCallId: f.parentToolCallId,
          ...(f.title ? { title: f.title } : {}),
          ...(f.description ? { description: f.description } : {}),
        },
      });
      return;
    case 'child.state': {
      const n = nextCount(step);
      step.emit(`child.updated:${f.childSessionId}:${n}`, {
        kind: 'child.updated',
        payload: {
          childSessionId: f.childSessionId,
          state: f.state,
          ...(f.summary ? { summary: f.summary } : {}),
        },
      });
      return;
    }
    case 'child.end':
      step.emit(`child.completed:${f.childSessionId}`, {
        kind: 'child.completed',
        payload: {
          childSessionId: f.childSessionId,
          status: f.status,
          ...(f.summary ? { summary: f.summary } : {}),
          ...(f.status !== 'completed'
            ? { stopReason: f.status === 'cancelled' ? 'cancelled' : 'error' }
            : {}),
        },
      });
      return;
    case 'stage':
    case 'checkpoint':
      // Bookkeeping for resume and the corpus; no canonical event.
      return;
    default:
      warnCounted(
        step,
        'builtin.unknown_frame',
        'an unknown built-in engine frame',
        f as unknown as JsonValue,
      );
  }
}

function hashOf(value: JsonValue | object): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 12);
}

function streamPart(step: Step, stepNo: number, part: JsonObject, cost?: UsageCost): void {
  const id = stringOrEmpty(part.id);
  const key = `${stepNo}:${id}`;
  switch (part.type) {
    case 'text-start': {
      const messageId = `msg-${stepNo}-${id}`;
      step.state = { ...step.state, texts: { ...step.state.texts, [key]: { id: messageId, text: '' } } };
      step.emit(`message.started:${messageId}`, {
        kind: 'message.started',
        payload: { messageId, role: 'assistant' },
      });
      return;
    }
    case 'text-delta': {
      const open = step.state.texts[key];
      if (!open) {
        warnCounted(step, 'builtin.orphan_delta', `text delta for unknown block ${key}`);
        return;
      }
      const delta = stringOrEmpty(part.text);
      const n = open.text.length;
      step.state = {
        ...step.state,
        texts: { ...step.state.texts, [key]: { id: open.id, text: open.text + delta } },
      };
      step.emit(`message.delta:${open.id}:${n}`, {
        kind: 'message.delta',
        payload: { messageId: open.id, partId: open.id, delta },
      });
      return;
    }
    case 'text-end': {
      endText(step, key);
      return;
    }
    case 'reasoning-start': {
      const reasoningId = `rsn-${stepNo}-${id}`;
      step.state = {
        ...step.state,
        reasoning: { ...step.state.reasoning, [key]: { id: reasoningId, text: '' } },
      };
      return;
    }
    case 'reasoning-delta': {
      const open = step.state.reasoning[key];
      if (!open) {
        warnCounted(step, 'builtin.orphan_delta', `reasoning delta for unknown block ${key}`);
        return;
      }
      const delta = stringOrEmpty(part.text);
      const n = open.text.length;
      step.state = {
        ...step.state,
        reasoning: { ...step.state.reasoning, [key]: { id: open.id, text: open.text + delta } },
      };
      step.emit(`reasoning.delta:${open.id}:${n}`, {
        kind: 'reasoning.delta',
        payload: { reasoningId: open.id, delta },
      });
      return;
    }
    case 'reasoning-end': {
      endReasoning(step, key);
      return;
    }
    case 'tool-input-start': {
      const name = stringOrEmpty(part.toolName);
      step.state = {
        ...step.state,
        tools: { ...step.state.tools, [id]: { name, input: '', started: true } },
      };
      step.emit(`tool.started:${id}`, {
        kind: 'tool.started',
        payload: { toolCallId: id, name, kind: 'other', input: {}, status: 'pending' },
      });
      return;
    }
    case 'tool-input-delta': {
      const known = step.state.tools[id];
      if (!known) return;
      const inputDelta = stringOrEmpty(part.delta);
      const input = known.input + inputDelta;
      step.state = { ...step.state, tools: { ...step.state.tools, [id]: { ...known, input } } };
      // The append form: each event carries its piece only (O(Δ) stored and sent); the tool-call part's
      // tool.progress below carries the whole parsed input once.
      step.emit(`tool.input:${id}:${known.input.length}`, {
        kind: 'tool.progress',
        payload: { toolCallId: id, status: 'pending', inputDelta },
      });
      return;
    }
    case 'tool-call': {
      const callId = stringOrEmpty(part.toolCallId);
      const known = step.state.tools[callId];
      const inputHash = hashOf(part.input ?? {});
      if (!known) {
        const name = stringOrEmpty(part.toolName);
        step.state = {
          ...step.state,
          tools: { ...step.state.tools, [callId]: { name, input: '', started: true, inputHash } },
        };
        step.emit(`tool.started:${callId}`, {
          kind: 'tool.started',
          payload: { toolCallId: callId, name, kind: 'other', input: part.input ?? {}, status: 'pending' },
        });
      } else {
        step.state = { ...step.state, tools: { ...step.state.tools, [callId]: { ...known, inputHash } } };
        step.emit(`tool.input:${callId}`, {
          kind: 'tool.progress',
          payload: { toolCallId: callId, status: 'pending', input: part.input ?? {} },
        });
      }
      return;
    }
    case 'finish-step': {
      const usage = (part.usage ?? {}) as JsonObject;
      const n = step.state.usageSteps + 1;
      step.state = { ...step.state, usageSteps: n };
      step.emit(`usage:step:${n}`, {
        kind: 'usage.updated',
        payload: {
          scope: 'step',
          ...usageFields(usage),
          ...(cost ? { cost } : {}),
          ...(typeof part.model === 'string' ? { model: part.model } : {}),
        },
      });
      return;
    }
    case 'error':
      warnCounted(
        step,
        'builtin.model_stream_error',
        `the model stream reported an error: ${stringOrEmpty(part.message)}`,
      );
      return;
    case 'start':
    case 'start-step':
    case 'tool-input-end':
    // Approval parts: the runtime's own approval / tool.end frames carry the card and the outcome.
    case 'tool-approval-request':
    case 'tool-output-denied':
    // The SDK's answer to a call it could not parse; the runtime's tool.end frame reports it.
    case 'tool-error':
    case 'finish':
    case 'abort':
    case 'source':
    case 'file':
    case 'raw':
      return;
    default:
      warnCounted(
        step,
        'builtin.unknown_part',
        `an AI SDK stream part this translator does not know: ${stringOrEmpty(part.type)}`,
      );
  }
}

const SHA256 = /^[0-9a-f]{64}$/;

/** Output past a bound, in an engine-local file: the lane stores it from the file; the event names it. */
function fileArtifact(step: Step, f: Extract<RuntimeFrame, { rt: 'artifact'; file: unknown }>): void {
  const { path, bytes, sha256 } = f.file;
  if (typeof path !== 'string' || !Number.isSafeInteger(bytes) || bytes < 0 || !SHA256.test(String(sha256)))
    throw new Error('artifact.file needs a path, a byte count and a sha256');
  const ref = { id: `sha256-${sha256}`, bytes, sha256, contentType: f.contentType };
  step.artifacts.push({ ref, file: path });
  const key = `${f.toolCallId ?? 'turn'}:${ref.id}:${f.name}`;
  step.emit(`artifact.created:${key}`, {
    kind: 'artifact.created',
    payload: {
      artifact: ref,
      name: f.name,
      ...(f.preview !== undefined ? { preview: f.preview.slice(0, MAX_PREVIEW_CHARS) } : {}),
      ...(f.toolCallId !== undefined ? { toolCallId: f.toolCallId } : {}),
    },
  });
  if (f.deliver)
    step.emit(`artifact.delivered:${key}`, {
      kind: 'artifact.delivered',
      payload: {
        artifact: ref,
        name: f.name,
        ...(f.description !== undefined ? { description: f.description } : {}),
      },
    });
}

/** AI SDK usage → the canonical fields (absent counts stay absent, never 0). */
export function usageFields(usage: JsonObject): {
  inputTokens?: number;
  outputTokens?: number;
  reasoningTokens?: number;
  cachedInputTokens?: number;
  totalTokens?: number;
} {
  const out: ReturnType<typeof usageFields> = {};
  const set = (k: keyof typeof out, v: JsonValue | undefined) => {
    if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  };
  set('inputTokens', usage.inputTokens);
  set('outputTokens', usage.outputTokens);
  set('reasoningTokens', usage.reasoningTokens);
  set('cachedInputTokens', usage.cachedInputTokens);
  set('totalTokens', usage.totalTokens);
  return out;
}
