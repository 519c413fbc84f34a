import type { UsageCost } from '@agentlane/contract';

/** What one model costs, per 1 million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Reasoning output tokens; default: the output price. */
  reasoning?: number;
  /** Input tokens read from the provider's cache; default: the input price. */
  cached?: number;
  /** ISO 4217 code; default USD. */
  currency?: string;
}

/** Model id → price. A model that is not in the table gets no cost (never a guessed one). */
export type PriceTable = Record<string, ModelPrice>;

export interface TokenCounts {
  inputTokens?: number;
  outputTokens?: number;
  reasoningTokens?: number;
  cachedInputTokens?: number;
}

const PER = 1_000_000;

/**
 * The cost of one call's tokens. The AI SDK counts cached input inside `inputTokens` and reasoning inside
 * `outputTokens`, so each is priced once: the uncached and non-reasoning rest at the base prices.
 */
export function costOf(price: ModelPrice | undefined, usage: TokenCounts): UsageCost | undefined {
  if (!price) return undefined;
  const input = usage.inputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  const cached = Math.min(usage.cachedInputTokens ?? 0, input);
  const reasoning = Math.min(usage.reasoningTokens ?? 0, output);
  const amount =
    ((input - cached) * price.input +
      cached * (price.cached ?? price.input) +
      (output - reasoning) * price.output +
      reasoning * (price.reasoning ?? price.output)) /
    PER;
  return { amount: round(amount), currency: price.currency ?? 'USD' };
}

/** Sums costs of one currency (a table names one currency per model, and a turn runs one model). */
export function addCost(a: UsageCost | undefined, b: UsageCost | undefined): UsageCost | undefined {
  if (!a) return b;
  if (!b) return a;
  return { amount: round(a.amount + b.amount), currency: a.currency };
}

/** Twelve decimals: enough for fractions of a cent per token, without binary float noise in events. */
function round(n: number): number {
  return Math.round(n * 1e12) / 1e12;
}

/** Refuses a table with a negative, missing or non-finite price (a config error, found at start). */
export function checkPrices(table: unknown): void {
  if (typeof table !== 'object' || table === null || Array.isArray(table))
    throw new Error('prices must be an object of model id → price');
  for (const [model, price] of Object.entries(table as Record<string, unknown>)) {
    const p = price as Record<string, unknown>;
    for (const k of ['input', 'output', 'reasoning', 'cached'] as const) {
      const v = p?.[k];
      const required = k === 'input' || k === 'output';
      if (v === undefined && !required) continue;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
        throw new Error(`prices.${model}.${k} must be a non-negative number (per 1M tokens)`);
    }
    if (p.currency !== undefined && (typeof p.currency !== 'string' || !/^[A-Z]{3}$/.test(p.currency)))
      throw new Error(`prices.${model}.currency must be an ISO 4217 code such as USD`);
  }
}
