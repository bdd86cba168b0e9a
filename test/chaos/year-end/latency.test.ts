import { describe, expect, it } from 'vitest';
import { meanLatencyMs, YEAR_END_LATENCY } from '../../../chaos/year-end/latency.js';
import { YEAR_END_DEFAULTS } from '../../../chaos/year-end/simulate.js';
import { DEFAULT_UPSTREAM_LATENCY_MS, workerConcurrency } from '../../../shared/config/index.js';

describe('the latency the worker concurrency is derived from', () => {
  it('is the year-end distribution’s mean, rounded up to 10 ms, not its median', () => {
    const mean = meanLatencyMs(YEAR_END_LATENCY, YEAR_END_DEFAULTS.clientTimeoutMs);
    expect(mean).toBeGreaterThan(YEAR_END_LATENCY.p50Ms);
    expect(DEFAULT_UPSTREAM_LATENCY_MS).toBe(Math.ceil(mean / 10) * 10);
  });

  it('gives the year-end model as many containers as the stack derives from the default budget', () => {
    expect(YEAR_END_DEFAULTS.containers).toBe(workerConcurrency(YEAR_END_DEFAULTS.budgetPerMinute));
  });
});
