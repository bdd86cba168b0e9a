import { describe, expect, it } from 'vitest';
import { upstreamCallCounterFromEnv } from '../../../../shared/upstream/index.js';

describe('upstreamCallCounterFromEnv', () => {
  it('writes one EMF line per request sent, named after its endpoint, as a Lambda function does for CloudWatch', () => {
    const lines: string[] = [];
    const count = upstreamCallCounterFromEnv({ POWERTOOLS_SERVICE_NAME: 'bridge' }, (l) => lines.push(l));
    count('getMemberByExternalId');
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({
        _aws: expect.objectContaining({ CloudWatchMetrics: [expect.objectContaining({ Dimensions: [['service']] })] }),
        service: 'bridge',
        UpstreamCalls_getMemberByExternalId: 1,
      }),
    ]);
  });

  it('writes nothing when the function’s metrics are switched off, as in-process runs (npm start, tests, chaos) switch them', () => {
    const lines: string[] = [];
    const count = upstreamCallCounterFromEnv({ POWERTOOLS_METRICS_DISABLED: 'true' }, (l) => lines.push(l));
    count('getMemberByExternalId');
    expect(lines).toEqual([]);
  });
});
