import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listStageNames, loadStageConfig, MIN_BURST, parseStageConfig } from '../../../infra/config/index.js';
import { INFRA_DIR } from '../../../infra/paths.js';
import type { Json } from '../../support/json.js';

function stagingInput(): Record<string, Json> {
  return JSON.parse(readFileSync(join(INFRA_DIR, 'stages', 'staging.json'), 'utf8'));
}

describe('stage configuration: API throttling', () => {
  it('takes a burst of 2000 and 500 requests per second when a stage says nothing', () => {
    const input = stagingInput();
    delete input.api;
    expect(parseStageConfig(input).api).toEqual({ rateLimit: 500, burstLimit: 2000 });
  });

  it('refuses a burst limit that would answer a 1000-order flash sale 429', () => {
    const input = stagingInput();
    input.api = { rateLimit: 50, burstLimit: 100 };
    expect(() => parseStageConfig(input, 'stage.json')).toThrow(/must be at least 1000[\s\S]*api\.burstLimit/);
  });

  it('gives every configured stage a burst of at least 1000', () => {
    for (const name of listStageNames(INFRA_DIR)) {
      expect(loadStageConfig(INFRA_DIR, name).api.burstLimit).toBeGreaterThanOrEqual(MIN_BURST);
    }
  });
});
