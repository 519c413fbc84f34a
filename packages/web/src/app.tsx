import { ThreadList } from './components/thread-list';
import { ThreadView } from './components/thread-view';
import { useRoute } from './use-route';

export function App() {
  const route = useRoute();
  return (
    <div className="app">
      <header className="app-header">
        <a className="brand" href="#/">
          agentlane
        </a>
      </header>
      {route.page === 'thread' ? (
        <ThreadView key={route.threadId} threadId={route.threadId} timelineKey={route.timelineKey} />
      ) : (
        <ThreadList />
      )}
    </div>
  );
}
