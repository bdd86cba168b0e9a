import { describe, expect, it } from 'vitest';
import { runBundleBench } from '../../../bench/bundles.js';
import { FUNCTION_BUNDLE } from '../../../infra/bundling.js';

describe('bench bundles', () => {
  it("sets the worker's load against its SDK floor also under the NODE_OPTIONS the stack gives its functions", async () => {
    const figures = await runBundleBench({ samples: 1 });
    const worker = figures.find((b) => b.name === 'process-events');
    expect(worker?.sdkFloor?.sourceMaps.nodeOptions).toBe(FUNCTION_BUNDLE.nodeOptions);
    expect(worker?.sdkFloor?.sourceMaps.loadWithSdkMsP50).toBeGreaterThan(0);
    expect(worker?.sdkFloor?.sourceMaps.floorMsP50).toBeGreaterThan(0);
  }, 120_000);
});
