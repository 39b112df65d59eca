/** Nearest-rank percentile of a list of numbers (p in 0..100). */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1];
}

/** Runs `fn` once per item and returns p50/p95 milliseconds. */
export async function timeEach(items, fn) {
  const ms = [];
  for (const item of items) {
    const started = performance.now();
    await fn(item);
    ms.push(performance.now() - started);
  }
  return { p50: percentile(ms, 50), p95: percentile(ms, 95) };
}
