import { openRequests, type TimelineState } from '@agentlane/client';

/** Every approval and question still waiting for the user, sub-agents' included. */
export function WaitingBar({
  state,
  onJump,
}: {
  state: TimelineState;
  onJump(timelineKey: string, key: string): void;
}) {
  const open = openRequests(state);
  if (open.length === 0) return null;
  return (
    <nav className="waiting-bar" aria-label="Waiting on you" data-surface="waiting">
      <strong>Waiting on you:</strong>
      <ul>
        {open.map(({ timelineKey, item }) => (
          <li key={`${timelineKey}#${item.key}`}>
            <button type="button" className="link" onClick={() => onJump(timelineKey, item.key)}>
              {item.type === 'approval'
                ? (item.request?.title ?? 'Approval')
                : (item.request?.prompt ?? 'Question')}
              {timelineKey ? ` (sub-agent ${timelineKey})` : ''}
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
