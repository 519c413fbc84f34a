import type { Principal, ServerContext } from '@agentlane/server';
import {
  assertAllThreads,
  assertThreadAccess,
  createThreadSession,
  GUARDS_OWN_TEXT,
  HttpError,
  MAX_PROMPT_CHARS,
  quote,
} from '@agentlane/server';
import type { ThreadRecord } from '@agentlane/store';

/** Refuses a prompt over the REST run route's own bound (MAX_PROMPT_CHARS), naming where it was. */
export function assertPromptLength(prompt: string, field: string): void {
  if (prompt.length > MAX_PROMPT_CHARS)
    throw new HttpError(
      'invalid_request',
      `the prompt is ${prompt.length} characters; at most ${MAX_PROMPT_CHARS} are accepted`,
      field,
    );
}

export interface ProtocolThreadRequest {
  /** The protocol's thread (or chat) id: the agentlane thread. */
  threadId: string;
  /** The engine the request names for a new thread, if any: read (and checked) only when one is started. */
  engine: () => string | undefined;
  /** The engine the request names, if any: an existing thread's must be the one it runs on. */
  named: string | undefined;
  /** The engine of a new thread that names none; else the only configured one. */
  defaultEngine: string | undefined;
  /** What the protocol calls a thread, for errors. */
  noun: 'thread' | 'chat';
  /** Where in the request the thread's settings are (the engine is `<field>.engine`). */
  field: string;
}

/** The thread a protocol request posts to: the existing one it may access, or a new one on its engine. */
export async function protocolThread(
  ctx: ServerContext,
  principal: Principal,
  request: ProtocolThreadRequest,
): Promise<ThreadRecord> {
  // Before the lookup: a thread outside the token's scope gets the same 403 whether it exists or not.
  assertThreadAccess(principal, request.threadId);
  const existing = await ctx.store.getThread(request.threadId);
  if (existing) {
    // A thread keeps the engine it was started on: a request naming another one would otherwise be answered
    // by the thread's engine without a word, which the client (a model picker) cannot tell from its own.
    const { named } = request;
    if (named !== undefined && named !== existing.engine)
      throw new HttpError(
        'conflict',
        `${request.noun} ${quote(existing.threadId)} runs on engine ${quote(existing.engine)}, not ${quote(named)}: start a new ${request.noun} for another engine`,
        `${request.field}.engine`,
      );
    return existing;
  }
  assertAllThreads(principal, `starting a ${request.noun}`);
  const engines = ctx.engines.list();
  const engine =
    request.engine() ?? request.defaultEngine ?? (engines.length === 1 ? engines[0]?.name : undefined);
  if (!engine) {
    const known = engines.map((e) => e.name).join(', ') || 'none';
    throw new HttpError(
      'invalid_request',
      `a new ${request.noun} needs an engine (configured: ${known})`,
      `${request.field}.engine`,
    );
  }
  return (await createThreadSession(ctx, { threadId: request.threadId, engine }, request.field)).thread;
}

/**
 * Route options of the protocol POSTs, whose clients send the whole conversation every turn (useChat's
 * DefaultChatTransport, AG-UI's HttpAgent) though the route reads only its end: a body limit that a long
 * chat does not reach (the API's 1 MiB stopped one at its seventh 48 KB prompt), and the text guard left to
 * the route, as the history holds what the server itself streamed (a model's NUL or lone surrogate, which
 * the API refuses in input, would otherwise refuse every later turn of that chat).
 */
export const HISTORY_POST = {
  bodyLimit: 32 * 1024 * 1024,
  config: { [GUARDS_OWN_TEXT]: true },
} as const;
