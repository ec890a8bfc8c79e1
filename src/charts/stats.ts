/** Quantile by linear interpolation on sorted values. */
export function quantile(sorted: number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lower = Math.floor(at);
  const upper = Math.ceil(at);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (at - lower);
}

/** Tukey box: whiskers at the furthest points within 1.5 IQR; the rest are outliers. */
export function boxStats(values: number[]): { box: [number, number, number, number, number]; outliers: number[] } {
  const sorted = [...values].sort((a, b) => a - b);
  const q1 = quantile(sorted, 0.25);
  const median = quantile(sorted, 0.5);
  const q3 = quantile(sorted, 0.75);
  const fence = 1.5 * (q3 - q1);
  const inside = sorted.filter((v) => v >= q1 - fence && v <= q3 + fence);
  return {
    box: [inside[0], q1, median, q3, inside[inside.length - 1]],
    outliers: sorted.filter((v) => v < q1 - fence || v > q3 + fence),
  };
}

/** Gaussian kernel density at `points`, Silverman's bandwidth. */
export function density(values: number[], points: number[]): number[] {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / Math.max(1, n - 1));
  const bandwidth = 1.06 * (sd || 1) * n ** -0.2;
  return points.map(
    (x) =>
      values.reduce((sum, v) => sum + Math.exp(-0.5 * ((x - v) / bandwidth) ** 2), 0) /
      (n * bandwidth * Math.sqrt(2 * Math.PI)),
  );
}

/** Values grouped by category, then by group, keeping first-seen order. */
export function groupValues(rows: Array<{ category: string; value: number; group?: string }>): {
  categories: string[];
  groups: string[];
  values: Map<string, Map<string, number[]>>;
} {
  const values = new Map<string, Map<string, number[]>>();
  const categories: string[] = [];
  const groups: string[] = [];
  for (const row of rows) {
    const group = row.group ?? '';
    if (!categories.includes(row.category)) categories.push(row.category);
    if (!groups.includes(group)) groups.push(group);
    if (!values.has(group)) values.set(group, new Map());
    const byCategory = values.get(group)!;
    if (!byCategory.has(row.category)) byCategory.set(row.category, []);
    byCategory.get(row.category)!.push(row.value);
  }
  return { categories, groups, values };
}
