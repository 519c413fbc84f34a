import type { ReactNode } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { UsageData } from './usage-data';

const number = new Intl.NumberFormat();
const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });
const money = (amount: number | undefined, currency: string | undefined) =>
  amount === undefined ? '—' : `${amount.toFixed(4)}${currency ? ` ${currency}` : ''}`;

/** Series colours: CSS variables, so both themes keep their contrast. */
const COLOURS = {
  input: 'var(--chart-1)',
  output: 'var(--chart-2)',
  reasoning: 'var(--chart-3)',
  cached: 'var(--chart-4)',
};
const axis = { stroke: 'var(--muted)', tick: { fill: 'var(--muted)', fontSize: 11 } };
const tooltip = {
  contentStyle: { background: 'var(--bg)', border: '1px solid var(--border)', color: 'var(--fg)' },
  labelStyle: { color: 'var(--fg)' },
  isAnimationActive: false,
};

function Chart({
  name,
  caption,
  summary,
  children,
}: {
  name: string;
  caption: string;
  summary: string;
  children: ReactNode;
}) {
  return (
    <figure className="usage-chart" data-chart={name}>
      <figcaption>{caption}</figcaption>
      <div role="img" aria-label={summary}>
        {children}
      </div>
    </figure>
  );
}

const chartProps = {
  responsive: true,
  style: { width: '100%', height: 190 },
  margin: { top: 4, right: 8, bottom: 0, left: 0 },
  accessibilityLayer: false,
} as const;

/**
 * Tokens and cost per turn and per model, and context-window use where the engine reports it, drawn with
 * recharts from the thread's `usage.updated` events (the reducer's rows: the page keeps no usage of its
 * own). The numbers are also a table, for a screen reader and for copying.
 */
export function UsageInspector({ data }: { data: UsageData }) {
  const { turns, models, currency } = data;
  if (turns.length === 0)
    return (
      <section className="usage-inspector" aria-label="Usage">
        <p className="muted">This thread has no usage reports yet.</p>
      </section>
    );
  const total = turns.reduce(
    (s, t) => ({ input: s.input + t.input, output: s.output + t.output, cost: s.cost + (t.cost ?? 0) }),
    { input: 0, output: 0, cost: 0 },
  );
  const perTurn = turns.map((t) => ({ ...t, label: `T${t.turn}` }));
  // A model with cost and no tokens (a turn's cost reported for no model) is in the table, not the chart.
  const tokenModels = models.filter((m) => m.input + m.output + m.reasoning > 0);
  return (
    <section className="usage-inspector" aria-label="Usage">
      <p className="muted" data-testid="usage-total">
        {turns.length} turns · {number.format(total.input)} in · {number.format(total.output)} out
        {data.hasCost ? ` · ${money(total.cost, currency)}` : ''}
      </p>
      <Chart
        name="tokens-per-turn"
        caption="Tokens per turn"
        summary={`Tokens per turn: ${turns.map((t) => `turn ${t.turn} ${t.input} in, ${t.output} out`).join('; ')}`}
      >
        <BarChart data={perTurn} {...chartProps}>
          <CartesianGrid stroke="var(--border)" vertical={false} />
          <XAxis dataKey="label" {...axis} />
          <YAxis {...axis} width={44} tickFormatter={(v: number) => compact.format(v)} />
          <Tooltip {...tooltip} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Bar dataKey="input" name="input" stackId="t" fill={COLOURS.input} isAnimationActive={false} />
          <Bar dataKey="output" name="output" stackId="t" fill={COLOURS.output} isAnimationActive={false} />
          {turns.some((t) => t.reasoning > 0) && (
            <Bar
              dataKey="reasoning"
              name="reasoning"
              stackId="t"
              fill={COLOURS.reasoning}
              isAnimationActive={false}
            />
          )}
        </BarChart>
      </Chart>
      {data.hasCost && (
        <Chart
          name="cost-per-turn"
          caption={`Cost per turn${currency ? ` (${currency})` : ''}`}
          summary={`Cost per turn: ${turns.map((t) => `turn ${t.turn} ${money(t.cost, currency)}`).join('; ')}`}
        >
          <BarChart data={perTurn} {...chartProps}>
            <CartesianGrid stroke="var(--border)" vertical={false} />
            <XAxis dataKey="label" {...axis} />
            <YAxis {...axis} width={52} tickFormatter={(v: number) => v.toPrecision(2)} />
            <Tooltip {...tooltip} formatter={(v) => money(Number(v), currency)} />
            <Bar dataKey="cost" name="cost" fill={COLOURS.reasoning} isAnimationActive={false} />
          </BarChart>
        </Chart>
      )}
      <Chart
        name="tokens-per-model"
        caption="Tokens per model"
        summary={`Tokens per model: ${tokenModels.map((m) => `${m.model} ${m.input} in, ${m.output} out`).join('; ')}`}
      >
        <BarChart
          data={tokenModels}
          layout="vertical"
          {...chartProps}
          style={{ width: '100%', height: 60 + 34 * tokenModels.length }}
        >
          <CartesianGrid stroke="var(--border)" horizontal={false} />
          <XAxis type="number" {...axis} tickFormatter={(v: number) => compact.format(v)} />
          <YAxis type="category" dataKey="model" {...axis} width={110} />
          <Tooltip {...tooltip} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Bar dataKey="input" name="input" stackId="m" fill={COLOURS.input} isAnimationActive={false} />
          <Bar dataKey="output" name="output" stackId="m" fill={COLOURS.output} isAnimationActive={false} />
        </BarChart>
      </Chart>
      {data.hasContext && (
        <Chart
          name="context-window"
          caption="Context window in use"
          summary={`Context window in use: ${turns
            .filter((t) => t.contextUsed !== undefined)
            .map((t) => `turn ${t.turn} ${t.contextUsed}${t.contextWindow ? ` of ${t.contextWindow}` : ''}`)
            .join('; ')}`}
        >
          <LineChart data={perTurn.filter((t) => t.contextUsed !== undefined)} {...chartProps}>
            <CartesianGrid stroke="var(--border)" vertical={false} />
            <XAxis dataKey="label" {...axis} />
            <YAxis {...axis} width={44} tickFormatter={(v: number) => compact.format(v)} />
            <Tooltip {...tooltip} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <Line
              dataKey="contextUsed"
              name="in use"
              stroke={COLOURS.input}
              strokeWidth={2}
              isAnimationActive={false}
            />
            <Line
              dataKey="contextWindow"
              name="window"
              stroke={COLOURS.cached}
              strokeDasharray="4 3"
              dot={false}
              isAnimationActive={false}
            />
          </LineChart>
        </Chart>
      )}
      <table className="usage-table" data-testid="usage-models">
        <caption>Per model</caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col">In</th>
            <th scope="col">Out</th>
            <th scope="col">Reasoning</th>
            <th scope="col">Cached</th>
            <th scope="col">Cost</th>
          </tr>
        </thead>
        <tbody>
          {models.map((m) => (
            <tr key={m.model} data-model={m.model}>
              <th scope="row" className="mono">
                {m.model}
              </th>
              <td>{number.format(m.input)}</td>
              <td>{number.format(m.output)}</td>
              <td>{number.format(m.reasoning)}</td>
              <td>{number.format(m.cached)}</td>
              <td>{money(m.cost, currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <details>
        <summary>Per turn</summary>
        <table className="usage-table" data-testid="usage-turns">
          <thead>
            <tr>
              <th scope="col">Turn</th>
              <th scope="col">In</th>
              <th scope="col">Out</th>
              <th scope="col">Reasoning</th>
              <th scope="col">Cost</th>
              <th scope="col">Context</th>
            </tr>
          </thead>
          <tbody>
            {turns.map((t) => (
              <tr key={t.turnId} data-turn-id={t.turnId}>
                <th scope="row">{t.turn}</th>
                <td>{number.format(t.input)}</td>
                <td>{number.format(t.output)}</td>
                <td>{number.format(t.reasoning)}</td>
                <td>{money(t.cost, currency)}</td>
                <td>
                  {t.contextUsed === undefined
                    ? '—'
                    : `${number.format(t.contextUsed)}${t.contextWindow ? ` / ${number.format(t.contextWindow)} (${t.contextPct}%)` : ''}`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}
