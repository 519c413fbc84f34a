import type { UsageTotals } from '@agentlane/client';
import { LRUCache } from 'lru-cache';

const format = new Intl.NumberFormat();
// Intl formatting is slow next to the rest of a row, and a long thread mounts many turn headers while it
// scrolls; token counts repeat a lot, so their text is kept.
const formatted = new LRUCache<number, string>({ max: 2000 });

function count(value: number): string {
  let text = formatted.get(value);
  if (text === undefined) {
    text = format.format(value);
    formatted.set(value, text);
  }
  return text;
}

export function UsageSummary({ usage, label }: { usage: UsageTotals; label: string }) {
  const parts = [`${count(usage.inputTokens)} in`, `${count(usage.outputTokens)} out`];
  if (usage.reasoningTokens) parts.push(`${count(usage.reasoningTokens)} reasoning`);
  if (usage.cachedInputTokens) parts.push(`${count(usage.cachedInputTokens)} cached`);
  if (usage.cost) parts.push(`${usage.cost.amount.toFixed(4)} ${usage.cost.currency}`);
  if (usage.contextUsedTokens !== undefined && usage.contextWindowTokens) {
    parts.push(`context ${Math.round((100 * usage.contextUsedTokens) / usage.contextWindowTokens)}%`);
  }
  return (
    <span className="usage" data-surface="usage">
      <span className="usage-label">{label}:</span> {parts.join(' · ')}
    </span>
  );
}
