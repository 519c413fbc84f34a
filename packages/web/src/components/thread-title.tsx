import type { SessionRecord } from '@agentlane/client';
import { type FormEvent, useEffect, useState } from 'react';
import { client } from '../api';
import { useLiveThread } from '../live-thread';
import { threadTitle } from '../titles';
import { threadHref } from '../use-route';
import { UserText } from './user-text';

/** The thread's title (the user's, the engine's or the first prompt), renamed in place with PUT /sessions/:id. */
export function ThreadTitle({ threadId, engineTitle }: { threadId: string; engineTitle?: string }) {
  const { refresh, refreshes, live } = useLiveThread();
  // The first prompt names a thread with no title: read the session again when its stream sees a run
  // start or end (it was read once, before the first prompt, and kept saying "New thread").
  const liveStatus = live?.threadId === threadId ? live.status : undefined;
  const [session, setSession] = useState<SessionRecord | undefined>();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | undefined>();

  // biome-ignore lint/correctness/useExhaustiveDependencies: re-read after a rename anywhere (refreshes) and as runs come and go (liveStatus)
  useEffect(() => {
    const controller = new AbortController();
    client
      .getSession(threadId, { signal: controller.signal })
      .then(setSession)
      .catch(() => {});
    return () => controller.abort();
  }, [threadId, refreshes, liveStatus]);

  const title = session ? threadTitle(session, engineTitle) : (engineTitle ?? '');
  const save = async (e: FormEvent) => {
    e.preventDefault();
    try {
      setSession(await client.updateSession(threadId, { title: draft.trim() || null }));
      setEditing(false);
      setError(undefined);
      refresh();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };

  if (editing) {
    return (
      <form className="title-edit" onSubmit={save} aria-label="Rename thread">
        <label htmlFor="thread-title-input" className="sr-only">
          Thread title
        </label>
        <input
          id="thread-title-input"
          value={draft}
          // biome-ignore lint/a11y/noAutofocus: the user just asked to rename; the field is where they type
          autoFocus
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => e.key === 'Escape' && setEditing(false)}
        />
        <button type="submit" className="primary">
          Save
        </button>
        <button type="button" onClick={() => setEditing(false)}>
          Cancel
        </button>
        {error && (
          <span className="error" role="alert">
            {error}
          </span>
        )}
      </form>
    );
  }
  const forkedFrom = session?.metadata['forkedFrom'] as
    | { threadId?: string; checkpointId?: string }
    | undefined;
  return (
    <div className="title-view">
      <h1 className="thread-title">
        <UserText text={title || threadId} />
      </h1>
      {forkedFrom?.threadId && (
        <a
          className="forked-from muted"
          href={threadHref(forkedFrom.threadId)}
          title={forkedFrom.checkpointId}
        >
          Forked from the original thread
        </a>
      )}
      <button
        type="button"
        className="link"
        onClick={() => {
          setDraft(title);
          setEditing(true);
        }}
      >
        Rename
      </button>
    </div>
  );
}
