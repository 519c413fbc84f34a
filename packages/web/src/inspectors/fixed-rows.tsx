import { type ReactNode, type UIEvent, useState } from 'react';

export interface FixedRowsProps<T> {
  items: readonly T[];
  /** Every row's height in pixels, borders included: positions are computed, never measured. */
  rowHeight: number;
  /** The viewport's height in pixels. */
  height: number;
  /** Rows mounted beyond each edge of the viewport (fast scrolling shows them instead of a gap). */
  overscan?: number;
  className?: string;
  role?: string;
  /** One row; `top` is its place in the list, to go into its style as `top`. */
  renderRow(item: T, index: number, top: number): ReactNode;
}

/**
 * A list of rows of one fixed height that mounts only those in view. Unlike a virtualizer that measures
 * (virtua observes every mounted row with a ResizeObserver and lays them out in flow), a row's place is
 * index × height: scrolling only mounts the rows coming into view (absolutely placed, each its own layout
 * root), and the rows already mounted are not touched (memoize what `renderRow` returns).
 */
export function FixedRows<T>({
  items,
  rowHeight,
  height,
  overscan = 8,
  className,
  role,
  renderRow,
}: FixedRowsProps<T>) {
  const [first, setFirst] = useState(0);
  const onScroll = (event: UIEvent<HTMLDivElement>) => {
    const next = Math.floor(event.currentTarget.scrollTop / rowHeight);
    if (next !== first) setFirst(next);
  };
  const from = Math.max(0, Math.min(first, items.length) - overscan);
  const to = Math.min(items.length, first + Math.ceil(height / rowHeight) + overscan);
  const rows: ReactNode[] = [];
  for (let i = from; i < to; i++) rows.push(renderRow(items[i]!, i, i * rowHeight));
  return (
    <div className={`fixed-rows ${className ?? ''}`} role={role} style={{ height }} onScroll={onScroll}>
      <div className="fixed-rows-space" style={{ height: items.length * rowHeight }}>
        {rows}
      </div>
    </div>
  );
}
