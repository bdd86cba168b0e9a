import { describe, expect, it } from 'vitest';
import { quarantineFromEnv } from '../../../../shared/intake/quarantine.js';

/** The metrics receive-webhook publishes for a new quarantine entry (the alarms read them). */
describe('quarantine metrics from the environment', () => {
  const metricsOf = (bodyKept: boolean) => {
    const lines: string[] = [];
    const { countQuarantined } = quarantineFromEnv({ QUARANTINE_TABLE: 'quarantine' }, (line) => lines.push(line));
    countQuarantined?.('shopify', { bodyKept });
    return lines.flatMap((l) =>
      (JSON.parse(l)._aws.CloudWatchMetrics as { Metrics: { Name: string }[] }[]).flatMap((m) => m.Metrics.map((x) => x.Name)),
    );
  };

  it('counts a new entry as QuarantinedDeliveries', () => {
    expect(metricsOf(true)).toEqual(['QuarantinedDeliveries']);
  });

  it('counts an entry whose body could not be kept as QuarantinedBodiesNotKept too', () => {
    expect(metricsOf(false)).toEqual(['QuarantinedDeliveries', 'QuarantinedBodiesNotKept']);
  });
});
