import { describe, expect, it } from 'vitest';
import { adminRoutes } from '../../../local/admin.js';
import type { LocalStackInfo } from '../../../local/index.js';

const info: LocalStackInfo = {
  emulator: { url: 'http://127.0.0.1:3902', clientId: 'demo-client' },
  dynamodb: { url: 'http://127.0.0.1:3903', tableName: 'points-ledger' },
};

describe('GET /__local/info', () => {
  it('answers 503 while the emulator and dynalite are still starting', () => {
    const answer = adminRoutes({ queue: () => undefined, info: () => undefined })['GET /__local/info']!();
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body.toString())).toEqual({ status: 'starting' });
  });

  it('answers where the emulator and dynalite listen once they do', () => {
    const answer = adminRoutes({ queue: () => undefined, info: () => info })['GET /__local/info']!();
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body.toString())).toEqual(info);
  });
});
