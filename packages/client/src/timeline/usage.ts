import type { CanonicalEventOf } from '@agentlane/contract';
import type { UsageTotals } from './types.js';

function emptyUsage(): UsageTotals {
  return { inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cachedInputTokens: 0, totalTokens: 0 };
}

/** Adds up usage reports: token counts sum, the context figures and the model are the latest given. */
export function usageFrom(payloads: CanonicalEventOf<'usage.updated'>['payload'][]): UsageTotals {
  const total = emptyUsage();
  for (const usage of payloads) {
    total.inputTokens += usage.inputTokens ?? 0;
    total.outputTokens += usage.outputTokens ?? 0;
    total.reasoningTokens += usage.reasoningTokens ?? 0;
    total.cachedInputTokens += usage.cachedInputTokens ?? 0;
    total.totalTokens += usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
    if (usage.contextUsedTokens !== undefined) total.contextUsedTokens = usage.contextUsedTokens;
    if (usage.contextWindowTokens !== undefined) total.contextWindowTokens = usage.contextWindowTokens;
    if (usage.model !== undefined) total.model = usage.model;
    if (usage.cost) {
      total.cost = {
        amount: (total.cost?.amount ?? 0) + usage.cost.amount,
        currency: usage.cost.currency,
      };
    }
  }
  return total;
}

/** The session total when only per-turn totals are known. */
export function sumUsage(values: UsageTotals[]): UsageTotals {
  return usageFrom(
    values.map((u) => ({
      scope: 'turn' as const,
      inputTokens: u.inputTokens,
      outputTokens: u.outputTokens,
      reasoningTokens: u.reasoningTokens,
      cachedInputTokens: u.cachedInputTokens,
      totalTokens: u.totalTokens,
      contextUsedTokens: u.contextUsedTokens,
      contextWindowTokens: u.contextWindowTokens,
      cost: u.cost,
      model: u.model,
    })),
  );
}
