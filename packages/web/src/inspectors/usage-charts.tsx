import { Bar, BarChart, Line, LineChart, XAxis, YAxis } from 'recharts';
import { axis, ChartCard, ChartFrame, COLOURS, chartProps } from './chart-card';
import type { ModelUsage, TurnUsage } from './usage-data';
import { compact, money } from './usage-format';

/** A turn's row in a per-turn chart: its numbers and its axis label. */
export type TurnPoint = TurnUsage & { label: string };

const turnAxis = <XAxis dataKey="label" {...axis} />;
const countAxis = <YAxis {...axis} width={44} tickFormatter={(v: number) => compact.format(v)} />;

export function TokensPerTurnChart({ turns }: { turns: TurnPoint[] }) {
  return (
    <ChartCard
      name="tokens-per-turn"
      caption="Tokens per turn"
      summary={`Tokens per turn: ${turns.map((t) => `turn ${t.turn} ${t.input} in, ${t.output} out`).join('; ')}`}
    >
      <BarChart data={turns} {...chartProps}>
        <ChartFrame grid="horizontal" />
        {turnAxis}
        {countAxis}
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
    </ChartCard>
  );
}

export function CostPerTurnChart({ turns, currency }: { turns: TurnPoint[]; currency: string | undefined }) {
  return (
    <ChartCard
      name="cost-per-turn"
      caption={`Cost per turn${currency ? ` (${currency})` : ''}`}
      summary={`Cost per turn: ${turns.map((t) => `turn ${t.turn} ${money(t.cost, currency)}`).join('; ')}`}
    >
      <BarChart data={turns} {...chartProps}>
        <ChartFrame grid="horizontal" legend={false} formatter={(v) => money(Number(v), currency)} />
        {turnAxis}
        <YAxis {...axis} width={52} tickFormatter={(v: number) => v.toPrecision(2)} />
        <Bar dataKey="cost" name="cost" fill={COLOURS.reasoning} isAnimationActive={false} />
      </BarChart>
    </ChartCard>
  );
}

/** Per model, stacked input and output; a model with cost and no tokens is in the table, not here. */
export function TokensPerModelChart({ models }: { models: ModelUsage[] }) {
  const drawn = models.filter((m) => m.input + m.output + m.reasoning > 0);
  return (
    <ChartCard
      name="tokens-per-model"
      caption="Tokens per model"
      summary={`Tokens per model: ${drawn.map((m) => `${m.model} ${m.input} in, ${m.output} out`).join('; ')}`}
    >
      <BarChart
        data={drawn}
        layout="vertical"
        {...chartProps}
        style={{ width: '100%', height: 60 + 34 * drawn.length }}
      >
        <ChartFrame grid="vertical" />
        <XAxis type="number" {...axis} tickFormatter={(v: number) => compact.format(v)} />
        <YAxis type="category" dataKey="model" {...axis} width={110} />
        <Bar dataKey="input" name="input" stackId="m" fill={COLOURS.input} isAnimationActive={false} />
        <Bar dataKey="output" name="output" stackId="m" fill={COLOURS.output} isAnimationActive={false} />
      </BarChart>
    </ChartCard>
  );
}

/** The context window in use per turn, where the engine reports it, against the window's size. */
export function ContextWindowChart({ turns }: { turns: TurnPoint[] }) {
  const reported = turns.filter((t) => t.contextUsed !== undefined);
  return (
    <ChartCard
      name="context-window"
      caption="Context window in use"
      summary={`Context window in use: ${reported
        .map((t) => `turn ${t.turn} ${t.contextUsed}${t.contextWindow ? ` of ${t.contextWindow}` : ''}`)
        .join('; ')}`}
    >
      <LineChart data={reported} {...chartProps}>
        <ChartFrame grid="horizontal" />
        {turnAxis}
        {countAxis}
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
    </ChartCard>
  );
}
