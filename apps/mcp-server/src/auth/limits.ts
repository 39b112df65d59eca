// Per-caller request rates: a token bucket per caller name (bursts up to the per-minute rate,
// refilled continuously). Over it, the HTTP server answers 429 with Retry-After.
import type { Caller } from "./caller.js";

interface Bucket {
  tokens: number;
  at: number;
}

/** Callers remembered at most; past it the oldest tenth is forgotten (a forgotten caller starts full again). */
const MAX_BUCKETS = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  /** Takes one request from `caller`'s bucket: undefined when allowed, else the seconds to wait. */
  take(caller: Caller, now = Date.now()): number | undefined {
    const rate = caller.limits?.requestsPerMinute;
    if (!rate || rate <= 0) return undefined;
    const key = `${caller.via}:${caller.name}`;
    const perMs = rate / 60_000;
    if (!this.buckets.has(key) && this.buckets.size >= MAX_BUCKETS) {
      // A Map keeps insertion order: the first entries are the oldest callers.
      for (const old of [...this.buckets.keys()].slice(0, MAX_BUCKETS / 10)) this.buckets.delete(old);
    }
    const bucket = this.buckets.get(key) ?? { tokens: rate, at: now };
    bucket.tokens = Math.min(rate, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
  }
}
