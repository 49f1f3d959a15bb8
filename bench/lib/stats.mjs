/**
 * The statistics every report uses: medians across rounds or runs, nearest-rank percentiles
 * of latencies, and the median of per-round ratios (two targets measured in the same round,
 * so drift and noise hit both alike).
 */

/** Median of the finite values (NaN when there are none). */
export const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Nearest-rank percentile of an ascending-sorted array. */
export const percentile = (sorted, q) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] : NaN;

export const round2 = (n) => (Number.isFinite(n) ? Math.round(n * 100) / 100 : n);

/** Median over rounds of num[round] ÷ den[round]; both are Maps round → value. */
export const medianPairedRatio = (num, den) => median([...num].map(([r, v]) => v / den.get(r)).filter(Number.isFinite));
