import {
  asString,
  ForkRefusedError,
  type ForkSessionRequest,
  type SessionBinding,
} from '@agentlane/engine-kit';
import type { OpencodeClient } from '@opencode-ai/sdk/v2/client';
import { OPENCODE_CAPABILITIES } from '../translate/capabilities.js';

/** The runtime binding key naming the session a fork was made from (its first open reports origin "fork"). */
export const FORKED_FROM = 'forkedFrom';

/**
 * OpenCode's own fork (POST /session/{id}/fork): a new session holding a copy of the messages before
 * `messageID` (all of them without one). After a run that is not the thread's latest, the cut is the first
 * message that follows the run's last one in the session, i.e. the next run's prompt.
 */
export async function forkOpenCodeSession(
  client: OpencodeClient,
  request: ForkSessionRequest,
  runtime: { url?: string },
): Promise<SessionBinding> {
  const { source, point } = request;
  const sourceId = source.nativeSessionId;
  if (!sourceId) throw new ForkRefusedError('the session has no OpenCode session yet: run it once first');
  const directory = asString(source.runtimeBinding.directory) ?? request.workDir;
  const messageID = point.atEnd
    ? undefined
    : await cutAfter(client, sourceId, directory, point.nativeMessageIds);
  const forked = await client.session.fork({
    sessionID: sourceId,
    directory,
    ...(messageID ? { messageID } : {}),
  });
  if (!forked.data?.id) {
    throw new Error(`OpenCode did not fork session ${sourceId}: ${JSON.stringify(forked.error ?? null)}`);
  }
  return {
    provider: source.provider,
    nativeSessionId: forked.data.id,
    runtimeBinding: { directory, ...(runtime.url ? { url: runtime.url } : {}), [FORKED_FROM]: sourceId },
    protocolVersion: source.protocolVersion,
    capabilities: OPENCODE_CAPABILITIES,
  };
}

/** The id of the first message after the last of `runMessages` (undefined: none follows, keep them all). */
async function cutAfter(
  client: OpencodeClient,
  sessionID: string,
  directory: string,
  runMessages: string[],
): Promise<string | undefined> {
  const listed = await client.session.messages({ sessionID, directory });
  if (!listed.data) {
    throw new Error(
      `OpenCode did not list session ${sessionID}'s messages: ${JSON.stringify(listed.error ?? null)}`,
    );
  }
  const ids = listed.data.map((m) => m.info.id);
  const wanted = new Set(runMessages);
  const last = ids.findLastIndex((id) => wanted.has(id));
  if (last < 0) {
    throw new ForkRefusedError(
      `none of the run's messages is in OpenCode session ${sessionID} any more: it cannot be forked after that run`,
    );
  }
  return ids[last + 1];
}
