import { useMemo, useState } from 'react';
import { type AuditFilter, filterRows, timelineByTurn, toAuditRow, toCsv, toJsonl } from './audit-rows';
import { AuditTable } from './audit-table';
import { AuditTimeline } from './audit-timeline';
import { download } from './download';
import { useAudit } from './use-audit';

/**
 * The thread's audit ledger: a virtualized table of every row (virtua, so 5,000 rows cost a screenful of
 * DOM), filterable, exported as the rows themselves (JSONL) or as the table (CSV), and a per-turn timeline.
 */
export function AuditInspector({ threadId, version }: { threadId: string; version: string }) {
  const feed = useAudit(threadId, version);
  const [filter, setFilter] = useState<AuditFilter>({ text: '', callClass: '', status: '' });
  const [view, setView] = useState<'table' | 'timeline'>('table');
  const rows = useMemo(() => feed.calls.map(toAuditRow), [feed.calls]);
  const shown = useMemo(() => filterRows(rows, filter), [rows, filter]);
  const shownIds = useMemo(() => new Set(shown.map((r) => r.id)), [shown]);

  return (
    <section className="audit-inspector" aria-label="Audit">
      <div className="inspector-tools">
        <label>
          Filter{' '}
          <input
            type="search"
            value={filter.text}
            onChange={(e) => setFilter({ ...filter, text: e.target.value })}
            placeholder="provider, model, tool, stage"
          />
        </label>
        <label>
          Class{' '}
          <select
            value={filter.callClass}
            onChange={(e) => setFilter({ ...filter, callClass: e.target.value as AuditFilter['callClass'] })}
          >
            <option value="">all</option>
            <option value="model">model</option>
            <option value="tool">tool</option>
          </select>
        </label>
        <label>
          Status{' '}
          <select
            value={filter.status}
            onChange={(e) => setFilter({ ...filter, status: e.target.value as AuditFilter['status'] })}
          >
            <option value="">all</option>
            <option value="ok">ok</option>
            <option value="error">error</option>
            <option value="cancelled">cancelled</option>
          </select>
        </label>
        <button
          type="button"
          onClick={() =>
            download(
              `audit-${threadId}.jsonl`,
              'application/x-ndjson',
              toJsonl(feed.calls.filter((c) => shownIds.has(c.record_id))),
            )
          }
        >
          Export JSONL
        </button>
        <button type="button" onClick={() => download(`audit-${threadId}.csv`, 'text/csv', toCsv(shown))}>
          Export CSV
        </button>
        <fieldset className="segmented">
          <legend className="sr-only">Audit view</legend>
          <label>
            <input
              type="radio"
              name="audit-view"
              checked={view === 'table'}
              onChange={() => setView('table')}
            />
            Table
          </label>
          <label>
            <input
              type="radio"
              name="audit-view"
              checked={view === 'timeline'}
              onChange={() => setView('timeline')}
            />
            Timeline
          </label>
        </fieldset>
      </div>
      <p className="muted" aria-live="polite" data-testid="audit-count">
        {shown.length === rows.length ? `${rows.length} calls` : `${shown.length} of ${rows.length} calls`}
        {feed.loading ? ' (loading…)' : ''}
      </p>
      {feed.error && (
        <p className="error" role="alert">
          {feed.error}
        </p>
      )}
      {view === 'timeline' ? <AuditTimeline turns={timelineByTurn(shown)} /> : <AuditTable rows={shown} />}
    </section>
  );
}
