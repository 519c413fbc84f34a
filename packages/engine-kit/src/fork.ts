import type { SessionBinding } from './driver.js';

/**
 * Where a native fork cuts the origin thread's history: right after one run's turn. The server finds the
 * run; the driver maps it to its engine's own history (a message id, or the session's end).
 */
export interface NativeForkPoint {
  /** The run is the thread's latest: the fork is the native session as it stands now. */
  atEnd: boolean;
  /** The engine's message ids the run's canonical events carry, in order (empty when it recorded none). */
  nativeMessageIds: string[];
}

export interface ForkSessionRequest {
  /** The origin thread's persisted binding: the native session to fork. */
  source: SessionBinding;
  /** The new thread's work folder (the origin's). */
  workDir: string;
  point: NativeForkPoint;
}

/**
 * The engine cannot fork at this point (or at all, for this session): the API answers 409 naming the fork
 * point. Any other error from forkSession is the engine failing.
 */
export class ForkRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ForkRefusedError';
  }
}

/** By name too: a driver built against another copy of engine-kit throws a different class. */
export function isForkRefused(error: unknown): error is Error {
  return error instanceof ForkRefusedError || (error instanceof Error && error.name === 'ForkRefusedError');
}
