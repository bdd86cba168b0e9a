import { describe, expect, it } from 'vitest';
import { localWorkerCount } from '../../../../kit/local-stack/workers.js';

describe('npm start: how many workers', () => {
  it('runs as many as the stack derives from the default budget when nothing is set', () => {
    expect(localWorkerCount({})).toBe(7);
  });

  it('derives fewer from a smaller UPSTREAM_BUDGET_PER_MINUTE, as the stack would', () => {
    expect(localWorkerCount({ UPSTREAM_BUDGET_PER_MINUTE: '600' })).toBe(3);
  });

  it('runs WORKER_CONCURRENCY workers when it is set', () => {
    expect(localWorkerCount({ WORKER_CONCURRENCY: '4' })).toBe(4);
  });

  it('refuses a WORKER_CONCURRENCY that is not a whole number from 1 to 50, naming it', () => {
    expect(() => localWorkerCount({ WORKER_CONCURRENCY: '0' })).toThrow(
      /WORKER_CONCURRENCY must be a whole number of workers from 1 to 50, got "0"/,
    );
    expect(() => localWorkerCount({ WORKER_CONCURRENCY: 'many' })).toThrow(/WORKER_CONCURRENCY/);
  });

  it('refuses a budget over the 2,000 a minute the Open API recommends, naming UPSTREAM_BUDGET_PER_MINUTE', () => {
    expect(() => localWorkerCount({ UPSTREAM_BUDGET_PER_MINUTE: '2500' })).toThrow(/UPSTREAM_BUDGET_PER_MINUTE/);
  });
});
