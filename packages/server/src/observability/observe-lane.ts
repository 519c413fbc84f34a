import type { StreamEvent } from '@agentlane/contract';
import type { LanePort } from '../lane-port.js';
import type { Metrics } from './metrics.js';

/**
 * The lane as the server's routes see it, timing live delivery: for each row a subscriber receives past the
 * head its subscription opened at (so not a replay), the time since the native frame it came from was
 * received (the envelope's `ts` is that receipt time). Only first revisions count: a revision keeps the ts
 * of its first version, so it would measure how long the event lived, not how long delivery took.
 */
export function observeLane(lane: LanePort, metrics: Metrics): LanePort {
  return {
    createRun: (input) => lane.createRun(input),
    cancelRun: (runId, key) => lane.cancelRun(runId, key),
    answerApproval: (input) => lane.answerApproval(input),
    answerQuestion: (input) => lane.answerQuestion(input),
    subscribe(threadId, after, listener, flow) {
      let head = Number.POSITIVE_INFINITY;
      return lane.subscribe(
        threadId,
        after,
        (event: StreamEvent) => {
          if (event.type === 'stream.opened') head = event.headDeliverySeq;
          else if ('event' in event && event.revision === 1 && event.deliverySeq > head) {
            const receivedAt = Date.parse(event.event.ts);
            if (Number.isFinite(receivedAt))
              metrics.frameToSubscriberSeconds.observe(Math.max(0, (Date.now() - receivedAt) / 1000));
          }
          listener(event);
        },
        flow,
      );
    },
  };
}
