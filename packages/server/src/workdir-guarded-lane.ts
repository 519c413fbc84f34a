import type { Store } from '@agentlane/store';
import { HttpError, quote } from './errors.js';
import type { LanePort } from './lane-port.js';

/**
 * The lane as every route and protocol of this server starts runs through it: a run starts only while its
 * session's workDir still lies inside the workspace root. The root is checked when a session is created, but
 * what is there may change since: an approved command can replace the folder with a link to anywhere
 * (`rm -r ws/a && ln -s / ws/a`), and every tool of the next turn would then work outside the root.
 */
export function workDirGuardedLane(
  lane: LanePort,
  store: Pick<Store, 'getThread'>,
  checkWorkDir: (workDir: string, field?: string) => string,
): LanePort {
  return {
    cancelRun: (runId, key) => lane.cancelRun(runId, key),
    answerApproval: (input) => lane.answerApproval(input),
    answerQuestion: (input) => lane.answerQuestion(input),
    subscribe: (threadId, after, listener, flow) => lane.subscribe(threadId, after, listener, flow),
    ...(lane.closeThreadEngine
      ? {
          closeThreadEngine: (threadId: string) =>
            lane.closeThreadEngine?.(threadId) ?? Promise.resolve(false),
        }
      : {}),
    async createRun(input) {
      const thread = await store.getThread(input.threadId);
      if (thread?.workDir) {
        try {
          checkWorkDir(thread.workDir);
        } catch {
          throw new HttpError(
            'conflict',
            `session ${quote(input.threadId)}: its workDir ${quote(thread.workDir)} no longer lies inside the workspace root (was it replaced by a link?); no run starts there`,
            'params.id',
          );
        }
      }
      return lane.createRun(input);
    },
  };
}
