import type { SessionNotification } from '@agentclientprotocol/sdk';

/** The agent's message text an ACP client received, in order. */
export const agentText = (updates: SessionNotification[]): string =>
  updates
    .flatMap((u) =>
      u.update.sessionUpdate === 'agent_message_chunk' && u.update.content.type === 'text'
        ? [u.update.content.text]
        : [],
    )
    .join('');
