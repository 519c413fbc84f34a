import type { AgentContext, SessionUpdate } from '@agentclientprotocol/sdk';
import type { AcpBackend } from './backend.js';
import { SessionUpdateTranslator } from './session-updates.js';

/**
 * session/load: the whole history from the store as session/update, each run's prompt (its turn.started)
 * as a user message, then what the run produced.
 */
export async function replayHistory(
  backend: AcpBackend,
  client: AgentContext,
  sessionId: string,
): Promise<void> {
  const translator = new SessionUpdateTranslator();
  for await (const row of backend.history(sessionId)) {
    const updates: SessionUpdate[] =
      row.event.kind === 'turn.started' && row.event.payload.prompt
        ? [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: row.event.payload.prompt } }]
        : translator.push(row.event);
    for (const update of updates) await client.notify('session/update', { sessionId, update });
  }
}
