import type { ForkedFrom } from '@agentlane/contract';
import type { ThreadRecord } from '@agentlane/store';
import type { ServerContext } from '../context.js';
import { createThreadSession, type NativeBinding } from '../thread-create.js';

/**
 * The new thread of a fork: the origin's engine and work folder, the cut in `metadata.forkedFrom` (what a
 * reader shows the origin's history up to), and, for a native fork, the engine's forked session.
 */
export function createForkThread(
  ctx: ServerContext,
  source: ThreadRecord,
  fork: { title: string; forkedFrom: ForkedFrom; binding?: NativeBinding },
) {
  return createThreadSession(ctx, {
    engine: source.engine,
    ...(source.workDir ? { workDir: source.workDir } : {}),
    title: fork.title,
    // An object literal's type (not the interface) is a JsonObject: metadata takes it as it is.
    metadata: { forkedFrom: { ...fork.forkedFrom } },
    ...(fork.binding ? { binding: fork.binding } : {}),
  });
}
