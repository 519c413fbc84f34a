import type { FrameHandlers } from './frame-types.js';
import { nextCount } from './state.js';

/** A sub-agent's life as its parent sees it: started, its state, its end. */
export const CHILD_FRAMES: FrameHandlers<'child.start' | 'child.state' | 'child.end'> = {
  'child.start': (step, f) =>
    step.emit(`child.started:${f.childSessionId}`, {
      kind: 'child.started',
      payload: {
        childSessionId: f.childSessionId,
        childRunId: f.childRunId,
        parentToolCallId: f.parentToolCallId,
        ...(f.title ? { title: f.title } : {}),
        ...(f.description ? { description: f.description } : {}),
      },
    }),
  'child.state': (step, f) => {
    const n = nextCount(step);
    step.emit(`child.updated:${f.childSessionId}:${n}`, {
      kind: 'child.updated',
      payload: {
        childSessionId: f.childSessionId,
        state: f.state,
        ...(f.summary ? { summary: f.summary } : {}),
      },
    });
  },
  'child.end': (step, f) =>
    step.emit(`child.completed:${f.childSessionId}`, {
      kind: 'child.completed',
      payload: {
        childSessionId: f.childSessionId,
        status: f.status,
        ...(f.summary ? { summary: f.summary } : {}),
        ...(f.status !== 'completed' ? { stopReason: f.status === 'cancelled' ? 'cancelled' : 'error' } : {}),
      },
    }),
};
