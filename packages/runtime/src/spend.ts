import type { UsageCost } from '@agentlane/contract';
import { addCost, type TokenCounts } from './prices.js';

/**
 * What a turn has spent so far: its model calls' tokens and, when the run's model has a price, their cost.
 * A sub-agent's turn keeps its own and hands it to the parent when it ends, so the parent's turn totals (and
 * its budget) include what its children spent.
 */
export interface Spend {
  tokens: Required<TokenCounts>;
  cost: UsageCost | undefined;
}

export function emptySpend(): Spend {
  return {
    tokens: { inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cachedInputTokens: 0 },
    cost: undefined,
  };
}

/** Adds one call's (or one child's) tokens and cost into `into`. */
export function addSpend(into: Spend, tokens: TokenCounts, cost: UsageCost | undefined): void {
  for (const k of Object.keys(into.tokens) as (keyof TokenCounts)[]) into.tokens[k] += tokens[k] ?? 0;
  into.cost = addCost(into.cost, cost);
}

/**
 * Tokens a budget counts: input plus output. The AI SDK counts cached input inside input and reasoning inside
 * output, so adding those again would count them twice.
 */
export function billedTokens(spend: Spend): number {
  return spend.tokens.inputTokens + spend.tokens.outputTokens;
}
