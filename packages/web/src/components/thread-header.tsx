import type { TimelineItem, TimelineView } from '@agentlane/client';
import type { ReactNode } from 'react';
import { threadHref } from '../use-route';
import { ThreadTitle } from './thread-title';
import { UsageSummary } from './usage-summary';

/** The top bar: the title (with the way back from a sub-agent's timeline), then `children` (status, actions). */
export function ThreadTop({
  threadId,
  timelineKey,
  engineTitle,
  children,
}: {
  threadId: string;
  timelineKey: string;
  engineTitle: string | undefined;
  children: ReactNode;
}) {
  return (
    <div className="thread-top">
      <div className="crumbs">
        <ThreadTitle threadId={threadId} {...(engineTitle ? { engineTitle } : {})} />
        {timelineKey && (
          <nav aria-label="Breadcrumb">
            <a href={threadHref(threadId)}>main thread</a> / sub-agent {timelineKey}
          </nav>
        )}
      </div>
      {children}
    </div>
  );
}

/** Model, mode and usage of the timeline, and a turn picker once there is more than one turn. */
export function ThreadMeta({
  view,
  turns,
  onJumpToTurn,
}: {
  view: TimelineView | undefined;
  turns: readonly TimelineItem[];
  onJumpToTurn: (key: string) => void;
}) {
  return (
    <div className="thread-meta">
      {view?.metadata.model && (
        <span className="muted">Model: {view.metadata.model.name ?? view.metadata.model.id}</span>
      )}
      {view?.mode && <span className="muted">Mode: {view.mode.currentModeId}</span>}
      {view?.usage.total && <UsageSummary usage={view.usage.total} label="thread" />}
      {turns.length > 1 && (
        <label>
          Jump to turn{' '}
          <select onChange={(e) => onJumpToTurn(e.target.value)} defaultValue="">
            <option value="" disabled>
              choose…
            </option>
            {turns.map((t, i) => (
              <option key={t.key} value={t.key}>
                {i + 1}. {t.type === 'turn' ? (t.prompt ?? '').slice(0, 60) : ''}
              </option>
            ))}
          </select>
        </label>
      )}
    </div>
  );
}
