import { emptyTimelineView, entityKeyOf, type StoredRow } from '@agentlane/client';
import { useCallback, useMemo, useRef, useState } from 'react';
import { type InspectorFocus, InspectorPanel } from '../inspectors/inspector-panel';
import { usePublishThread } from '../live-thread';
import { statusFromState } from '../thread-status';
import { useForkHistory } from '../use-fork-history';
import { threadHref } from '../use-route';
import { useThread } from '../use-thread';
import { Composer } from './composer';
import { ConnectionBanner } from './connection-banner';
import { ThreadMeta, ThreadTop } from './thread-header';
import { Timeline, type TimelineHandle } from './timeline';
import { WaitingBar } from './waiting-bar';

/** One thread (or one of its child sessions, by timeline key): the state is the reducer's, nothing else. */
export function ThreadView({ threadId, timelineKey }: { threadId: string; timelineKey: string }) {
  const { state, connection, error } = useThread(threadId);
  // A forked thread shows the history it continues (its origins' rows) before its own; a child session not.
  const forkHistory = useForkHistory(threadId);
  const history = timelineKey ? undefined : forkHistory;
  const timeline = useRef<TimelineHandle>(null);
  const view = state.timelines[timelineKey];
  const root = state.timelines[''];
  const turns = view?.items.filter((i) => i.type === 'turn') ?? [];
  const engineTitle = root?.metadata.title ?? root?.session?.title ?? undefined;
  const status = statusFromState(state);
  // The inspector panel: closed, or open on a tab (and the row or file it was opened for).
  const [focus, setFocus] = useState<InspectorFocus | undefined>();
  const inspecting = focus !== undefined;
  const items = view?.items;
  const turnOrder = useMemo(
    () => (items ?? []).filter((i) => i.type === 'turn').map((t) => t.turnId),
    [items],
  );
  const inspectRow = useCallback(
    (itemKeys: string[], label: string) => setFocus({ tab: 'frames', itemKeys, label }),
    [],
  );
  const fileHistory = useCallback((path: string) => setFocus({ tab: 'files', path }), []);
  usePublishThread({
    threadId,
    status,
    lastDeliverySeq: state.lastDeliverySeq,
    ...(engineTitle ? { engineTitle } : {}),
  });

  const jump = (key: string, target: string) => {
    if (key !== timelineKey) window.location.hash = threadHref(threadId, key);
    else timeline.current?.jumpTo(target);
  };
  const jumpToRow = (row: StoredRow) => jump(row.namespace.join('/'), entityKeyOf(row.event));

  return (
    <>
      <main className="thread" data-thread-id={threadId} data-timeline-key={timelineKey}>
        <ThreadTop threadId={threadId} timelineKey={timelineKey} engineTitle={engineTitle}>
          <ConnectionBanner connection={connection} error={error} />
          <button
            type="button"
            aria-expanded={inspecting}
            onClick={() => setFocus(inspecting ? undefined : { tab: 'audit' })}
          >
            Inspect
          </button>
        </ThreadTop>
        <ThreadMeta view={view} turns={turns} onJumpToTurn={(key) => timeline.current?.jumpTo(key)} />
        <WaitingBar state={state} onJump={jump} />
        {view || history?.length ? (
          <Timeline
            ref={timeline}
            view={view ?? emptyTimelineView(timelineKey)}
            threadId={threadId}
            onInspect={inspectRow}
            onFileHistory={fileHistory}
            {...(history?.length ? { history } : {})}
          />
        ) : (
          <p className="empty muted">{connection.status === 'live' ? 'Nothing here yet.' : 'Loading…'}</p>
        )}
        {!timelineKey && (root || connection.status === 'live') && (
          <Composer state={state} view={root ?? emptyTimelineView()} threadId={threadId} />
        )}
      </main>
      {focus && (
        <InspectorPanel
          threadId={threadId}
          version={`${status}:${Object.keys(state.runs).length}`}
          state={state}
          namespace={view?.namespace ?? []}
          turnOrder={turnOrder}
          focus={focus}
          onFocus={setFocus}
          onJump={jumpToRow}
          onClose={() => setFocus(undefined)}
        />
      )}
    </>
  );
}
