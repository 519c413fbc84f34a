import { memo } from 'react';
import type { AuditRow } from './audit-rows';
import { FixedRows } from './fixed-rows';

const COLUMNS = ['Class', 'Provider', 'Model', 'Name', 'Status', 'Latency', 'Tokens in/out', 'Cost', 'Stage'];
/** A row's height in pixels, its border included (the stylesheet's `.audit-row` says the same). */
const ROW_HEIGHT = 26;
const BODY_HEIGHT = 420;

// One formatter for every cell: Number.toLocaleString with a locale builds a new one on each call.
const integer = new Intl.NumberFormat('en-US');
const num = (n: number | null) => (n === null ? '' : integer.format(n));

/** One ledger row; memoized, so a row that stays in view while the list scrolls is not rendered again. */
const AuditTableRow = memo(function AuditTableRow({
  row: r,
  index,
  top,
}: {
  row: AuditRow;
  index: number;
  top: number;
}) {
  return (
    <div
      className={`audit-row status-row-${r.status}`}
      role="row"
      aria-rowindex={index + 2}
      data-record-id={r.id}
      style={{ top }}
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
  );
});

/**
 * The ledger rows as an ARIA table of divs: only the rows in view are mounted (FixedRows: every row is
 * ROW_HEIGHT high), which a <table> (whose rows the browser lays out together) does not allow. biome.json
 * turns off the two lints that ask for <table> elements for this file only.
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
      <FixedRows
        className="audit-body"
        role="rowgroup"
        items={rows}
        rowHeight={ROW_HEIGHT}
        height={BODY_HEIGHT}
        renderRow={(row, index, top) => <AuditTableRow key={row.id} row={row} index={index} top={top} />}
      />
    </div>
  );
}
