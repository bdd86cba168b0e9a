import { describe, expect, it } from 'vitest';
import { exitCodeFor, failuresOf, part } from '../../../bench/parts.js';

const quiet = () => undefined;

describe('bench parts', () => {
  it('names a part that threw among the failures, under its JSON key, and fails the run', async () => {
    const bundles = await part('bundles', async () => Promise.reject(new Error('No matching export "ScanCommand"')), quiet);
    const worker = await part('worker', async () => ({ writes: 2 }), quiet);
    const latency = await part('latency', async () => Promise.reject(new Error('no Smaregi stand-in')), quiet);
    const failures = failuresOf({ worker, bundles, latency }, { latency: 'intakeLatency' });
    expect(failures).toEqual(['bundles', 'intakeLatency']);
    expect(bundles).toMatchObject({ ok: false, error: 'No matching export "ScanCommand"' });
    expect(exitCodeFor(failures)).toBe(1);
  });

  it('lists no failures and passes when every part ran', async () => {
    const worker = await part('worker', async () => 1, quiet);
    expect(failuresOf({ worker })).toEqual([]);
    expect(exitCodeFor([])).toBe(0);
  });
});
