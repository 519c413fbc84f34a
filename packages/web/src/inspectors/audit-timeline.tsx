import type { AuditRow, TurnTimeline } from './audit-rows';

const ms = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`);

/**
 * Each turn's model and tool calls as bars on the turn's own time axis: a bar starts at the call's start
 * (created_at minus latency) and is as long as its latency. Plain SVG: a handful of bars per turn.
 */
export function AuditTimeline({ turns }: { turns: TurnTimeline[] }) {
  if (turns.length === 0) return <p className="muted">No calls.</p>;
  return (
    <div className="audit-timeline" data-testid="audit-timeline">
      {turns.map((turn, t) => {
        const span = Math.max(1, turn.endMs - turn.startMs);
        const height = turn.rows.length * 14 + 4;
        return (
          <figure key={turn.turnId} className="turn-timeline">
            <figcaption>
              Turn {t + 1} <span className="muted mono">{turn.turnId}</span> · {turn.rows.length} calls ·{' '}
              {ms(span)}
            </figcaption>
            <svg
              width="100%"
              height={height}
              viewBox={`0 0 1000 ${height}`}
              preserveAspectRatio="none"
              role="img"
              aria-label={`Turn ${t + 1}: ${turn.rows.length} calls over ${ms(span)}`}
            >
              {turn.rows.map((row: AuditRow, i) => (
                <rect
                  key={row.id}
                  data-call-class={row.callClass}
                  className={`bar bar-${row.callClass} bar-${row.status}`}
                  x={((row.startMs - turn.startMs) / span) * 1000}
                  y={i * 14 + 2}
                  width={Math.max(2, (row.latencyMs / span) * 1000)}
                  height={10}
                >
                  <title>
                    {row.callClass} {row.name || row.model} · {row.status} · {ms(row.latencyMs)}
                  </title>
                </rect>
              ))}
            </svg>
          </figure>
        );
      })}
    </div>
  );
}
