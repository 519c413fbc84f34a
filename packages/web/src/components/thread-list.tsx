import type { SessionRecord } from '@agentlane/client';
import { type FormEvent, useEffect, useState } from 'react';
import { client } from '../api';
import { threadHref } from '../use-route';
import { NewThread } from './new-thread';

export function ThreadList() {
  const [search, setSearch] = useState('');
  const [sessions, setSessions] = useState<SessionRecord[] | undefined>();
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      client
        .listSessions(search ? { search } : {}, { signal: controller.signal })
        .then((page) => {
          setSessions(page.sessions);
          setError(undefined);
        })
        .catch((e: unknown) => {
          if (!controller.signal.aborted) setError(e instanceof Error ? e.message : String(e));
        });
    }, 150);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [search]);

  return (
    <main className="thread-list">
      <h1>Threads</h1>
      <NewThread />
      <form className="search" aria-label="Search threads" onSubmit={(e: FormEvent) => e.preventDefault()}>
        <label htmlFor="thread-search">Search threads</label>
        <input
          id="thread-search"
          type="search"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          placeholder="title or folder"
        />
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {sessions === undefined && !error && <p aria-live="polite">Loading…</p>}
      {sessions?.length === 0 && <p>No threads yet.</p>}
      {sessions && sessions.length > 0 && (
        <table className="threads">
          <thead>
            <tr>
              <th scope="col">Thread</th>
              <th scope="col">Engine</th>
              <th scope="col">Folder</th>
              <th scope="col">Last activity</th>
            </tr>
          </thead>
          <tbody>
            {sessions.map((s) => (
              <tr key={s.id}>
                <td>
                  <a href={threadHref(s.id)}>{s.title || s.id}</a>
                </td>
                <td>{s.engine}</td>
                <td className="mono">{s.workDir ?? ''}</td>
                <td>
                  <time dateTime={s.updatedAt}>{new Date(s.updatedAt).toLocaleString()}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
