import { describe, expect, it } from 'vitest';
import { emfCountLine } from '../../../../shared/metrics/emf.js';
import { METRIC } from '../../../../shared/metrics/names.js';

describe('embedded metric format count', () => {
  it('publishes the named count under the namespace with the service dimension the alarms read', () => {
    const line = JSON.parse(
      emfCountLine({ namespace: 'LoyaltyPoints', service: 'bridge', name: METRIC.quarantinedDeliveries, nowMs: 1_795_000_000_000 }),
    );
    expect(line).toEqual({
      _aws: {
        Timestamp: 1_795_000_000_000,
        CloudWatchMetrics: [
          { Namespace: 'LoyaltyPoints', Dimensions: [['service']], Metrics: [{ Name: 'QuarantinedDeliveries', Unit: 'Count' }] },
        ],
      },
      service: 'bridge',
      QuarantinedDeliveries: 1,
    });
  });
});
