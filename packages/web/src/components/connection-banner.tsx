import type { ConnectionState } from '@agentlane/client';

function describe(connection: ConnectionState): { tone: string; text: string } {
  switch (connection.status) {
    case 'live':
      return { tone: 'live', text: 'Live' };
    case 'connecting':
      return { tone: 'connecting', text: 'Connecting…' };
    case 'catching-up':
      return { tone: 'catching-up', text: `Catching up from ${connection.from} to ${connection.head}…` };
    case 'reconnecting':
      return {
        tone: 'reconnecting',
        text: `Reconnecting (attempt ${connection.attempt}, from ${connection.after})…`,
      };
    case 'closed':
      return { tone: 'closed', text: 'Disconnected' };
  }
}

/** Where the stream stands: live, reconnecting, or catching up from a deliverySeq. */
export function ConnectionBanner({ connection, error }: { connection: ConnectionState; error?: string }) {
  const { tone, text } = error ? { tone: 'failed', text: `Stream refused: ${error}` } : describe(connection);
  return (
    <output
      className={`banner banner-${tone}`}
      data-connection={error ? 'failed' : connection.status}
      aria-live="polite"
    >
      <span className="dot" aria-hidden="true" />
      {text}
    </output>
  );
}
