import { randomUUID } from 'node:crypto';
import { type JsonObject, noCapabilities } from '@agentlane/contract';
import type { HarnessSessionRecord, ThreadRecord } from '@agentlane/store';
import type { ServerContext } from './context.js';
import { HttpError, quote } from './errors.js';

/** What a thread's session row says of its native session, besides the engine. */
export type NativeBinding = Pick<
  HarnessSessionRecord,
  'nativeSessionId' | 'runtimeBinding' | 'protocolVersion' | 'capabilities'
>;

/**
 * Creates a thread and its harness session row for a configured engine (POST /sessions, and the protocol
 * routes whose client names the conversation). The engine session itself is opened by the lane on the first
 * run. `field` prefixes the error fields (`body` → `body.engine`).
 */
export async function createThreadSession(
  ctx: ServerContext,
  input: {
    threadId?: string;
    engine: string;
    workDir?: string;
    title?: string;
    metadata?: JsonObject;
    /** The native session the thread starts bound to (a fork's); none: the lane opens one on the first run. */
    binding?: NativeBinding;
  },
  field = 'body',
): Promise<{ thread: ThreadRecord; session: HarnessSessionRecord }> {
  const driver = ctx.engines.get(input.engine);
  if (!driver) {
    const known = ctx.engines.list().map((e) => e.name);
    throw new HttpError(
      'invalid_request',
      `unknown engine ${quote(input.engine)} (configured: ${known.join(', ') || 'none'})`,
      `${field}.engine`,
    );
  }
  // Absolute, and inside the workspace root on real paths.
  const workDir = ctx.checkWorkDir(input.workDir ?? ctx.defaultWorkDir, `${field}.workDir`);
  const threadId = input.threadId ?? randomUUID();
  const thread = await ctx.store.createThread({
    threadId,
    engine: driver.name,
    title: input.title ?? null,
    workDir,
    metadata: input.metadata ?? {},
  });
  const session = await ctx.store.bindSession({
    threadId,
    provider: driver.provider,
    engine: driver.name,
    ...(input.binding ?? {
      nativeSessionId: null,
      runtimeBinding: {},
      protocolVersion: '',
      capabilities: noCapabilities(),
    }),
  });
  return { thread, session };
}
