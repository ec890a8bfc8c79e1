/** Money as every client shows it: yuan with two decimals and thousands separators (`¥2,552.00`); a dash for no number. */
export function formatYuan(amount: unknown): string {
  return typeof amount === 'number' && Number.isFinite(amount)
    ? `¥${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`
    : '—';
}
