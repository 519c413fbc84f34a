import { useMemo, useState } from 'react';
import { NewThread } from './components/new-thread';
import { ThreadView } from './components/thread-view';
import { type LiveThread, LiveThreadContext, type LiveThreadSlot } from './live-thread';
import { Sidebar } from './sidebar/sidebar';
import { useRoute } from './use-route';

export function App() {
  const route = useRoute();
  const [live, setLive] = useState<LiveThread | undefined>();
  const [refreshes, setRefreshes] = useState(0);
  const slot = useMemo<LiveThreadSlot>(
    () => ({ live, publish: setLive, refresh: () => setRefreshes((n) => n + 1), refreshes }),
    [live, refreshes],
  );
  const threadId = route.page === 'thread' ? route.threadId : undefined;
  return (
    <LiveThreadContext.Provider value={slot}>
      <div className="app">
        <header className="app-header">
          <a className="brand" href="#/">
            agentlane
          </a>
        </header>
        <div className="shell">
          <Sidebar currentThreadId={threadId} />
          {route.page === 'thread' ? (
            <ThreadView key={route.threadId} threadId={route.threadId} timelineKey={route.timelineKey} />
          ) : (
            <main className="home">
              <h1>Start a thread</h1>
              <NewThread />
            </main>
          )}
        </div>
      </div>
    </LiveThreadContext.Provider>
  );
}
