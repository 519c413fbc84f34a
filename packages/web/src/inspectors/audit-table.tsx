import { VList } from 'virtua';
import type { AuditRow } from './audit-rows';

const COLUMNS = ['Class', 'Provider', 'Model', 'Name', 'Status', 'Latency', 'Tokens in/out', 'Cost', 'Stage'];

const num = (n: number | null) => (n === null ? '' : n.toLocaleString('en-US'));

/**
 * The ledger rows as an ARIA table of divs: virtua mounts only the visible rows, which a <table> (whose rows
 * the browser lays out together) does not allow. biome.json turns off the two lints that ask for <table>
 * elements for this file only.
 */
export function AuditTable({ rows }: { rows: AuditRow[] }) {
  return (
    <div className="audit-table" role="table" aria-label="Audit ledger" aria-rowcount={rows.length + 1}>
      <div className="audit-row audit-head" role="row">
        {COLUMNS.map((c) => (
          <span key={c} role="columnheader">
            {c}
          </span>
        ))}
      </div>
      <VList className="audit-body" role="rowgroup" style={{ height: 420 }}>
        {rows.map((r, i) => (
          <div
            key={r.id}
            className={`audit-row status-row-${r.status}`}
            role="row"
            aria-rowindex={i + 2}
            data-record-id={r.id}
          >
            <span role="cell">{r.callClass}</span>
            <span role="cell">{r.provider}</span>
            <span role="cell" className="mono">
              {r.model}
            </span>
            <span role="cell" className="mono" title={r.error ?? undefined}>
              {r.name}
            </span>
            <span role="cell" className={`status status-${r.status === 'ok' ? 'completed' : 'failed'}`}>
              {r.status}
            </span>
            <span role="cell">{r.latencyMs} ms</span>
            <span role="cell">
              {r.inputTokens === null && r.outputTokens === null
                ? ''
                : `${num(r.inputTokens)} / ${num(r.outputTokens)}`}
            </span>
            <span role="cell">{r.cost === null ? '' : `${r.cost.toFixed(4)} ${r.currency ?? ''}`}</span>
            <span role="cell">{r.stage}</span>
          </div>
        ))}
      </VList>
    </div>
  );
}
