/** How the Usage inspector writes numbers: grouped counts, compact axis ticks, and an amount with currency. */
export const number = new Intl.NumberFormat();
export const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });
export const money = (amount: number | undefined, currency: string | undefined) =>
  amount === undefined ? '—' : `${amount.toFixed(4)}${currency ? ` ${currency}` : ''}`;
