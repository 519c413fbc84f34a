import { emptyTimelineView, entityKeyOf, type StoredRow } from '@agentlane/client';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { type InspectorFocus, InspectorPanel } from '../inspectors/inspector-panel';
import { useLiveThread } from '../live-thread';
import { markSeen } from '../seen';
import { statusFromState, type ThreadStatus } from '../thread-status';
import { useForkHistory } from '../use-fork-history';
import { threadHref } from '../use-route';
import { useThread } from '../use-thread';
import { Composer } from './composer';
import { ConnectionBanner } from './connection-banner';
import { ThreadMeta } from './thread-meta';
import { ThreadTitle } from './thread-title';
import { Timeline, type TimelineHandle } from './timeline';
import { WaitingBar } from './waiting-bar';

/** The sidebar shows this thread's status from its stream, and this browser has now seen its rows. */
function usePublishLive(
  threadId: string,
  status: ThreadStatus,
  lastDeliverySeq: number,
  engineTitle: string | undefined,
): void {
  const { publish } = useLiveThread();
  useEffect(() => {
    publish({ threadId, status, lastDeliverySeq, ...(engineTitle ? { engineTitle } : {}) });
    markSeen(threadId, lastDeliverySeq);
  }, [publish, threadId, status, engineTitle, lastDeliverySeq]);
  useEffect(() => () => publish(undefined), [publish]);
}

/** One thread (or one of its child sessions, by timeline key): the state is the reducer's, nothing else. */
export function ThreadView({ threadId, timelineKey }: { threadId: string; timelineKey: string }) {
  const { state, connection, error } = useThread(threadId);
  // A forked thread shows the history it continues (its origins' rows) before its own; a child session not.
  const forkHistory = useForkHistory(threadId);
  const history = timelineKey ? undefined : forkHistory;
  const timeline = useRef<TimelineHandle>(null);
  const view = state.timelines[timelineKey];
  const root = state.timelines[''];
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

  usePublishLive(threadId, status, state.lastDeliverySeq, engineTitle);

  const jump = (key: string, target: string) => {
    if (key !== timelineKey) window.location.hash = threadHref(threadId, key);
    else timeline.current?.jumpTo(target);
  };
  const jumpToRow = (row: StoredRow) => jump(row.namespace.join('/'), entityKeyOf(row.event));

  return (
    <>
      <main className="thread" data-thread-id={threadId} data-timeline-key={timelineKey}>
        <div className="thread-top">
          <div className="crumbs">
            <ThreadTitle threadId={threadId} {...(engineTitle ? { engineTitle } : {})} />
            {timelineKey && (
              <nav aria-label="Breadcrumb">
                <a href={threadHref(threadId)}>main thread</a> / sub-agent {timelineKey}
              </nav>
            )}
          </div>
          <ConnectionBanner connection={connection} error={error} />
          <button
            type="button"
            aria-expanded={inspecting}
            onClick={() => setFocus(inspecting ? undefined : { tab: 'audit' })}
          >
            Inspect
          </button>
        </div>
        <ThreadMeta view={view} onJump={(key) => timeline.current?.jumpTo(key)} />
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
