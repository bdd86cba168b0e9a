import { describe, expect, it } from 'vitest';
import { emfCounter } from '../../../../shared/intake/metrics.js';

describe('emfCounter', () => {
  it('writes one Embedded Metric Format line per count, in the configured namespace, by source and kind', () => {
    const lines: string[] = [];
    emfCounter({ POWERTOOLS_METRICS_NAMESPACE: 'Points' }, (l) => lines.push(l), () => 1_795_000_000_000)('DeliveriesIgnored', { source: 'shopify', kind: 'too_old' });
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      {
        _aws: {
          Timestamp: 1_795_000_000_000,
          CloudWatchMetrics: [{ Namespace: 'Points', Dimensions: [['source', 'kind']], Metrics: [{ Name: 'DeliveriesIgnored', Unit: 'Count' }] }],
        },
        source: 'shopify',
        kind: 'too_old',
        DeliveriesIgnored: 1,
      },
    ]);
  });
});
