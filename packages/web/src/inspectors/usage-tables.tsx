import { TableHead } from './table-head';
import type { ModelUsage, TurnUsage } from './usage-data';
import { money, number } from './usage-format';

export function ModelTable({ models, currency }: { models: ModelUsage[]; currency: string | undefined }) {
  return (
    <table className="usage-table" data-testid="usage-models">
      <caption>Per model</caption>
      <TableHead columns={['Model', 'In', 'Out', 'Reasoning', 'Cached', 'Cost']} />
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
  );
}

function contextText(t: TurnUsage): string {
  if (t.contextUsed === undefined) return '—';
  const window = t.contextWindow ? ` / ${number.format(t.contextWindow)} (${t.contextPct}%)` : '';
  return `${number.format(t.contextUsed)}${window}`;
}

export function TurnTable({ turns, currency }: { turns: TurnUsage[]; currency: string | undefined }) {
  return (
    <details>
      <summary>Per turn</summary>
      <table className="usage-table" data-testid="usage-turns">
        <TableHead columns={['Turn', 'In', 'Out', 'Reasoning', 'Cost', 'Context']} />
        <tbody>
          {turns.map((t) => (
            <tr key={t.turnId} data-turn-id={t.turnId}>
              <th scope="row">{t.turn}</th>
              <td>{number.format(t.input)}</td>
              <td>{number.format(t.output)}</td>
              <td>{number.format(t.reasoning)}</td>
              <td>{money(t.cost, currency)}</td>
              <td>{contextText(t)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
