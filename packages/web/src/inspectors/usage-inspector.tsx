import {
  ContextWindowChart,
  CostPerTurnChart,
  TokensPerModelChart,
  TokensPerTurnChart,
} from './usage-charts';
import type { UsageData } from './usage-data';
import { money, number } from './usage-format';
import { ModelTable, TurnTable } from './usage-tables';

/** The thread's totals in one line. */
function UsageTotal({ data }: { data: UsageData }) {
  const total = data.turns.reduce(
    (s, t) => ({ input: s.input + t.input, output: s.output + t.output, cost: s.cost + (t.cost ?? 0) }),
    { input: 0, output: 0, cost: 0 },
  );
  return (
    <p className="muted" data-testid="usage-total">
      {data.turns.length} turns · {number.format(total.input)} in · {number.format(total.output)} out
      {data.hasCost ? ` · ${money(total.cost, data.currency)}` : ''}
    </p>
  );
}

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
  const perTurn = turns.map((t) => ({ ...t, label: `T${t.turn}` }));
  return (
    <section className="usage-inspector" aria-label="Usage">
      <UsageTotal data={data} />
      <TokensPerTurnChart turns={perTurn} />
      {data.hasCost && <CostPerTurnChart turns={perTurn} currency={currency} />}
      <TokensPerModelChart models={models} />
      {data.hasContext && <ContextWindowChart turns={perTurn} />}
      <ModelTable models={models} currency={currency} />
      <TurnTable turns={turns} currency={currency} />
    </section>
  );
}
