import { type KeyboardEvent, useRef, useState } from 'react';
import { UserText } from '../components/user-text';
import { useLiveThread } from '../live-thread';
import { lastSeen } from '../seen';
import { rowStatus, STATUS_LABEL, type ThreadStatus } from '../thread-status';
import { threadTitle } from '../titles';
import { engineLabel, useEngines } from '../use-engines';
import { threadHref } from '../use-route';
import { useSessions } from '../use-sessions';

/** Arrow keys, Home and End move between the thread links; Enter follows one (a plain link). */
function moveFocus(list: HTMLElement, event: KeyboardEvent): void {
  const links = [...list.querySelectorAll<HTMLAnchorElement>('a[data-thread-id]')];
  if (links.length === 0) return;
  const at = links.indexOf(document.activeElement as HTMLAnchorElement);
  const next =
    event.key === 'ArrowDown'
      ? Math.min(at + 1, links.length - 1)
      : event.key === 'ArrowUp'
        ? Math.max(at - 1, 0)
        : event.key === 'Home'
          ? 0
          : event.key === 'End'
            ? links.length - 1
            : undefined;
  if (next === undefined) return;
  event.preventDefault();
  links[next]?.focus();
}

export function Sidebar({ currentThreadId }: { currentThreadId: string | undefined }) {
  const [search, setSearch] = useState('');
  const slot = useLiveThread();
  const { sessions, error, hasMore, loadingMore, loadMore } = useSessions(
    search,
    slot.refreshes,
    currentThreadId,
  );
  const { engines } = useEngines();
  const list = useRef<HTMLUListElement>(null);

  return (
    <aside className="sidebar" aria-label="Threads">
      <div className="sidebar-head">
        <h2>Threads</h2>
        <a className="button" href="#/">
          New thread
        </a>
      </div>
      <label htmlFor="thread-search" className="sr-only">
        Search threads
      </label>
      <input
        id="thread-search"
        type="search"
        value={search}
        placeholder="Search threads"
        onChange={(e) => setSearch(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' && list.current) {
            e.preventDefault();
            list.current.querySelector<HTMLAnchorElement>('a[data-thread-id]')?.focus();
          }
        }}
      />
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {sessions === undefined && !error && <p className="muted">Loading…</p>}
      {sessions?.length === 0 && <p className="muted">{search ? 'No thread matches.' : 'No threads yet.'}</p>}
      <ul className="thread-items" ref={list} onKeyDown={(e) => list.current && moveFocus(list.current, e)}>
        {sessions?.map((s) => {
          const live = slot.live?.threadId === s.id ? slot.live : undefined;
          const status: ThreadStatus = rowStatus(live?.status, s.activity?.status);
          const current = s.id === currentThreadId;
          const unread = !current && (s.activity?.headSeq ?? 0) > lastSeen(s.id);
          const title = threadTitle(s, live?.engineTitle);
          return (
            <li key={s.id}>
              <a
                href={threadHref(s.id)}
                data-thread-id={s.id}
                data-status={status}
                data-unread={unread}
                aria-current={current ? 'page' : undefined}
                title={s.workDir ?? undefined}
              >
                <span className="thread-item-title">
                  {unread && <span className="unread-dot" role="img" aria-label="unread" />}
                  <UserText text={title} />
                </span>
                <span className="thread-item-meta">
                  <span className="engine-label">{engineLabel(engines, s.engine)}</span>
                  <span className={`badge badge-${status}`}>{STATUS_LABEL[status]}</span>
                </span>
              </a>
            </li>
          );
        })}
      </ul>
      {hasMore && (
        <button type="button" className="load-more" onClick={loadMore} disabled={loadingMore}>
          {loadingMore ? 'Loading…' : 'Load older threads'}
        </button>
      )}
    </aside>
  );
}
