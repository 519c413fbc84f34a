import type { Lane } from '@agentlane/lane';

/**
 * What the server needs from the canonical lane. The server never runs engines itself: it records durable
 * commands through the lane and relays what the lane publishes (after the lane persisted it).
 */
export type LanePort = Pick<
  Lane,
  'createRun' | 'cancelRun' | 'answerApproval' | 'answerQuestion' | 'subscribe'
> &
  // A deleted session's engine process is closed where it runs (optional: a lane that runs no engines).
  Partial<Pick<Lane, 'closeThreadEngine'>>;
