import type { StoredRow } from '@agentlane/client';
import type { CanonicalEventOf } from '@agentlane/contract';
import { DiffBody } from '../components/diff-body';

type FileEvent = StoredRow & { event: CanonicalEventOf<'file.changed'> };

/** Every `file.changed` of the thread (latest revision of each), in thread order. */
export function fileChanges(rows: readonly StoredRow[]): FileEvent[] {
  return rows
    .filter((r): r is FileEvent => r.event.kind === 'file.changed')
    .sort((a, b) => a.order - b.order);
}

/**
 * A file's diff history in the thread: every `file.changed` event of that path (also as the old path of
 * a rename), oldest first, each with its diff and a way back to its row in the timeline.
 */
export function FileHistory({
  rows,
  path,
  turnOrder,
  onPath,
  onJump,
}: {
  rows: readonly StoredRow[];
  path: string | undefined;
  turnOrder: readonly string[];
  onPath(path: string): void;
  onJump(row: StoredRow): void;
}) {
  const changes = fileChanges(rows);
  const paths = [...new Set(changes.map((c) => c.event.payload.path))].sort();
  const current = path ?? paths[0];
  const history = changes.filter(
    (c) => c.event.payload.path === current || c.event.payload.previousPath === current,
  );
  if (paths.length === 0)
    return (
      <section className="file-history" aria-label="File history">
        <p className="muted">No file changed in this thread.</p>
      </section>
    );
  return (
    <section className="file-history" aria-label="File history">
      <label>
        File{' '}
        <select value={current} onChange={(e) => onPath(e.target.value)}>
          {paths.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </label>
      <p className="muted" data-testid="file-history-count">
        {history.length} {history.length === 1 ? 'change' : 'changes'} of {current}
      </p>
      <ol className="file-history-list">
        {history.map((c) => {
          const p = c.event.payload;
          const turn = turnOrder.indexOf(c.event.turnId);
          return (
            <li key={c.eventId} data-event-id={c.eventId}>
              <div className="card-head static">
                <span className="status">{p.change}</span>
                <span className="mono">{p.previousPath ? `${p.previousPath} → ${p.path}` : p.path}</span>
                {p.additions !== undefined && <span className="add">+{p.additions}</span>}
                {p.deletions !== undefined && <span className="del">−{p.deletions}</span>}
                <span className="muted">
                  {turn >= 0 ? `turn ${turn + 1} · ` : ''}
                  {new Date(c.event.ts).toLocaleTimeString()}
                </span>
                <button type="button" className="link" onClick={() => onJump(c)}>
                  Show in thread
                </button>
              </div>
              {p.diff ? <DiffBody diff={p.diff} /> : <p className="muted">No diff was reported.</p>}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
