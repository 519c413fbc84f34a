import type { AuditableCall } from '@agentlane/contract';
import type { Metrics } from './metrics.js';

type Sink = { record(rows: readonly AuditableCall[]): Promise<unknown> };

/**
 * The audit ledger with its inserts counted and the rows handed on (traces build model-call spans from
 * them). Every other method passes through untouched, so the same object still serves the audit routes.
 */
export function observeAudit<T extends Sink>(
  ledger: T,
  metrics: Metrics,
  onRows?: (rows: readonly AuditableCall[]) => void,
): T {
  const record = async (rows: readonly AuditableCall[]) => {
    const result = await ledger.record(rows);
    const inserted = (result as { inserted?: unknown } | undefined)?.inserted;
    metrics.auditRows.inc(typeof inserted === 'number' ? inserted : rows.length);
    if (rows.length > 0) onRows?.(rows);
    return result;
  };
  return new Proxy(ledger, {
    get(target, property) {
      if (property === 'record') return record;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
