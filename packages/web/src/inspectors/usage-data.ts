import type { StoredRow } from '@agentlane/client';
import type { CanonicalEventOf, UsageUpdatedPayload } from '@agentlane/contract';

/** One turn's usage: what the engine reported for it (its turn total, else the sum of its steps). */
export interface TurnUsage {
  /** 1-based, in thread order: the charts' axis. */
  turn: number;
  turnId: string;
  input: number;
  output: number;
  reasoning: number;
  cached: number;
  cost?: number;
  contextUsed?: number;
  contextWindow?: number;
  /** contextUsed / contextWindow in percent, when the engine reported both. */
  contextPct?: number;
}

export interface ModelUsage {
  model: string;
  input: number;
  output: number;
  reasoning: number;
  cached: number;
  cost?: number;
  /** How many usage reports (steps, else turns) were counted. */
  reports: number;
}

export interface UsageData {
  turns: TurnUsage[];
  models: ModelUsage[];
  currency?: string;
  /** True when any turn carries a cost; the cost charts are drawn only then. */
  hasCost: boolean;
  /** True when any report names the context window in use. */
  hasContext: boolean;
}

type UsageEvent = CanonicalEventOf<'usage.updated'>;

function add(
  into: { input: number; output: number; reasoning: number; cached: number; cost?: number },
  u: UsageUpdatedPayload,
) {
  into.input += u.inputTokens ?? 0;
  into.output += u.outputTokens ?? 0;
  into.reasoning += u.reasoningTokens ?? 0;
  into.cached += u.cachedInputTokens ?? 0;
  if (u.cost) into.cost = (into.cost ?? 0) + u.cost.amount;
}

/**
 * Usage per turn and per model from a timeline's `usage.updated` events (the latest revision of each, in
 * thread order), the same reading as the reducer's turn totals: a turn-scoped report is the turn's total,
 * else its step reports add up. Per model, steps are counted where a turn has them (they name the model
 * of each call) and what the turn total counts beyond them is the turn's model's; else the turn's own report. Context-window use is the last one a turn reported. Turns are
 * numbered by their place in `turnOrder` (the thread's turns) when given.
 */
export function usageData(rows: readonly StoredRow[], turnOrder: readonly string[] = []): UsageData {
  const usage = rows
    .filter((r): r is StoredRow & { event: UsageEvent } => r.event.kind === 'usage.updated')
    .sort((a, b) => a.order - b.order);
  const byTurn = new Map<string, UsageEvent[]>();
  let currency: string | undefined;
  for (const row of usage) {
    const event = row.event;
    if (event.payload.cost) currency ??= event.payload.cost.currency;
    if (event.payload.scope === 'session') continue;
    const list = byTurn.get(event.turnId) ?? [];
    list.push(event);
    byTurn.set(event.turnId, list);
  }
  const models = new Map<string, ModelUsage>();
  const model = (name: string) => {
    let m = models.get(name);
    if (!m) {
      m = { model: name, input: 0, output: 0, reasoning: 0, cached: 0, reports: 0 };
      models.set(name, m);
    }
    return m;
  };
  const turns: TurnUsage[] = [];
  for (const [turnId, events] of byTurn) {
    const steps = events.filter((e) => e.payload.scope === 'step');
    const turnReports = events.filter((e) => e.payload.scope === 'turn');
    const index = turnOrder.indexOf(turnId);
    const t: TurnUsage = {
      turn: index >= 0 ? index + 1 : turns.length + 1,
      turnId,
      input: 0,
      output: 0,
      reasoning: 0,
      cached: 0,
    };
    const turnModel = turnReports.at(-1)?.payload.model;
    if (turnReports.length > 0) add(t, turnReports.at(-1)!.payload);
    else for (const s of steps) add(t, s.payload);
    for (const report of steps.length > 0 ? steps : turnReports.slice(-1)) {
      const m = model(report.payload.model ?? turnModel ?? 'unknown');
      add(m, report.payload);
      m.reports += 1;
    }
    // A turn total above its steps' sum (calls that reported no step, e.g. a planning call) is the turn's
    // model's (`unattributed` when the turn total names none), so the models add up to the turns.
    if (steps.length > 0 && turnReports.length > 0) {
      const counted = { input: 0, output: 0, reasoning: 0, cached: 0 } as Parameters<typeof add>[0];
      for (const s of steps) add(counted, s.payload);
      const rest = {
        input: Math.max(0, t.input - counted.input),
        output: Math.max(0, t.output - counted.output),
        reasoning: Math.max(0, t.reasoning - counted.reasoning),
        cached: Math.max(0, t.cached - counted.cached),
        cost: t.cost !== undefined ? Math.max(0, t.cost - (counted.cost ?? 0)) : undefined,
      };
      if (rest.input + rest.output + rest.reasoning + rest.cached + (rest.cost ?? 0) > 0) {
        const m = model(turnModel ?? 'unattributed');
        m.input += rest.input;
        m.output += rest.output;
        m.reasoning += rest.reasoning;
        m.cached += rest.cached;
        if (rest.cost) m.cost = (m.cost ?? 0) + rest.cost;
      }
    }
    for (const e of events) {
      if (e.payload.contextUsedTokens !== undefined) t.contextUsed = e.payload.contextUsedTokens;
      if (e.payload.contextWindowTokens !== undefined) t.contextWindow = e.payload.contextWindowTokens;
    }
    if (t.contextUsed !== undefined && t.contextWindow)
      t.contextPct = Math.round((1000 * t.contextUsed) / t.contextWindow) / 10;
    turns.push(t);
  }
  turns.sort((a, b) => a.turn - b.turn);
  return {
    turns,
    models: [...models.values()].sort((a, b) => b.input + b.output - (a.input + a.output)),
    ...(currency ? { currency } : {}),
    hasCost: turns.some((t) => t.cost !== undefined),
    hasContext: turns.some((t) => t.contextUsed !== undefined),
  };
}
