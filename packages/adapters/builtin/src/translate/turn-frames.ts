import { noteModelStart, noteRow } from './cutoff-rows.js';
import type { FrameHandlers } from './frame-types.js';
import { hashOf } from './hash.js';
import { LIMIT_STOP, nextCount, track, warnCounted } from './state.js';

/** The turn's own records: plan, model calls, usage, markers, warnings, ledger rows, bookkeeping. */
export const TURN_FRAMES: FrameHandlers<
  'plan' | 'model.start' | 'usage' | 'marker' | 'warning' | 'model' | 'audit' | 'stage' | 'checkpoint'
> = {
  plan: (step, f) =>
    step.emit(`plan:${step.events.length}:${JSON.stringify(f.entries).length}:${hashOf(f.entries)}`, {
      kind: 'plan.updated',
      payload: { planId: 'turn-plan', entries: f.entries },
    }),
  'model.start': (step, f) => track(step, (t) => noteModelStart(t, f, step.receivedAt)),
  usage: (step, f) => step.emit(`usage:${f.usage.scope}`, { kind: 'usage.updated', payload: f.usage }),
  marker: (step, f) => {
    const n = nextCount(step);
    step.emit(`marker:${n}`, { kind: 'context.marker', payload: f.marker });
  },
  warning: (step, f) => {
    if (Object.hasOwn(LIMIT_STOP, f.code)) step.state = { ...step.state, stopReason: f.code };
    warnCounted(step, f.code, f.message, f.detail);
  },
  model: (step, f) =>
    step.emit('session.metadata', {
      kind: 'session.metadata',
      payload: { model: { id: f.model }, availableModels: f.availableModels.map((id) => ({ id })) },
    }),
  audit: (step, f) => {
    track(step, (t) => noteRow(t, f.row));
    step.audit.push(f.row);
  },
  // Bookkeeping for resume and the corpus; no canonical event.
  stage: () => {},
  checkpoint: () => {},
};
