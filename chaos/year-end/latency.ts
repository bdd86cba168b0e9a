/**
 * Upstream latency for the year-end model: log-normal with a median of 120 ms and a p99 of 1.5 s
 * (sigma = ln(1500/120) / z(0.99) ≈ 1.086), plus a slow tail: 0.2 % of calls take 5 to 15 s (a
 * vendor's GC pause, a cold database page). A call longer than the client's timeout ends as a timeout.
 * Drawn in the model at the call (no HTTP here: see README.md in this folder for why).
 */
import type { Random } from '../prng.js';

export interface LatencyModel {
  p50Ms: number;
  p99Ms: number;
  slowShare: number;
  slowMinMs: number;
  slowMaxMs: number;
}

export const YEAR_END_LATENCY: LatencyModel = { p50Ms: 120, p99Ms: 1_500, slowShare: 0.002, slowMinMs: 5_000, slowMaxMs: 15_000 };

/** z of the standard normal's 99th percentile. */
const Z99 = 2.326_347_874;

export function lognormalSigma(m: LatencyModel): number {
  return Math.log(m.p99Ms / m.p50Ms) / Z99;
}

/** A sampler of call latencies (ms) from `random`. */
export function latencySampler(m: LatencyModel, random: Random): () => number {
  const mu = Math.log(m.p50Ms);
  const sigma = lognormalSigma(m);
  return () => {
    if (random.chance(m.slowShare)) return m.slowMinMs + random.next() * (m.slowMaxMs - m.slowMinMs);
    // Box-Muller: one standard normal from two uniforms (1 - u keeps the log away from 0).
    const z = Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());
    return Math.exp(mu + sigma * z);
  };
}

/**
 * The mean time a call takes under `m` when the client gives up after `timeoutMs`: the log-normal's
 * mean, p50 × e^(sigma²/2) (its share past the timeout, ~0.03 % at 5 s, is left in), and the slow
 * tail's mean, cut at the timeout. What Little's law wants (shared/config/throughput.ts).
 */
export function meanLatencyMs(m: LatencyModel, timeoutMs: number): number {
  const sigma = lognormalSigma(m);
  const body = m.p50Ms * Math.exp((sigma * sigma) / 2);
  const slow = Math.min((m.slowMinMs + m.slowMaxMs) / 2, timeoutMs);
  return (1 - m.slowShare) * body + m.slowShare * slow;
}
