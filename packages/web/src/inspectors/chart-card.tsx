import type { ReactNode } from 'react';
import { CartesianGrid, Legend, Tooltip } from 'recharts';

/** Series colours: CSS variables, so both themes keep their contrast. */
export const COLOURS = {
  input: 'var(--chart-1)',
  output: 'var(--chart-2)',
  reasoning: 'var(--chart-3)',
  cached: 'var(--chart-4)',
};

export const axis = { stroke: 'var(--muted)', tick: { fill: 'var(--muted)', fontSize: 11 } };

const tooltip = {
  contentStyle: { background: 'var(--bg)', border: '1px solid var(--border)', color: 'var(--fg)' },
  labelStyle: { color: 'var(--fg)' },
  isAnimationActive: false,
};

/** What every chart shares: full width, the same margins, and no keyboard layer (the card's summary reads it). */
export const chartProps = {
  responsive: true,
  style: { width: '100%', height: 190 },
  margin: { top: 4, right: 8, bottom: 0, left: 0 },
  accessibilityLayer: false,
} as const;

export interface ChartCardProps {
  /** `data-chart`: what a test or a stylesheet finds it by. */
  name: string;
  caption: string;
  /** The chart's numbers in words: what a screen reader reads instead of the drawing. */
  summary: string;
  children: ReactNode;
}

/** One chart of the Usage inspector: its caption over the drawing, which is an image with its numbers. */
export function ChartCard({ name, caption, summary, children }: ChartCardProps) {
  return (
    <figure className="usage-chart" data-chart={name}>
      <figcaption>{caption}</figcaption>
      <div role="img" aria-label={summary}>
        {children}
      </div>
    </figure>
  );
}

/**
 * The grid, tooltip and legend of a chart, inside it (recharts 3 reads its parts from any component
 * rendered in the chart, not only from its direct children).
 */
export function ChartFrame({
  grid,
  legend = true,
  formatter,
}: {
  grid: 'horizontal' | 'vertical';
  legend?: boolean;
  formatter?: (value: unknown) => string;
}) {
  return (
    <>
      <CartesianGrid
        stroke="var(--border)"
        vertical={grid === 'vertical'}
        horizontal={grid === 'horizontal'}
      />
      <Tooltip {...tooltip} {...(formatter ? { formatter } : {})} />
      {legend && <Legend wrapperStyle={{ fontSize: 12 }} />}
    </>
  );
}
