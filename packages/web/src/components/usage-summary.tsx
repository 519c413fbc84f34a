import type { UsageTotals } from '@agentlane/client';

const format = new Intl.NumberFormat();

export function UsageSummary({ usage, label }: { usage: UsageTotals; label: string }) {
  const parts = [`${format.format(usage.inputTokens)} in`, `${format.format(usage.outputTokens)} out`];
  if (usage.reasoningTokens) parts.push(`${format.format(usage.reasoningTokens)} reasoning`);
  if (usage.cachedInputTokens) parts.push(`${format.format(usage.cachedInputTokens)} cached`);
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
