import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parseStageConfig } from '../../../infra/config/index.js';
import { ConfigurationError } from '../../../shared/config/index.js';
import { INFRA_DIR } from '../../../infra/paths.js';
import type { Json } from '../../support/json.js';

/** The staging example as written, as a plain object each test may change. */
export function stagingInput(): Record<string, Json> {
  return JSON.parse(readFileSync(join(INFRA_DIR, 'stages', 'staging.json'), 'utf8'));
}

/** The message a refused stage configuration gets (fails the test when it is accepted). */
export function problemOf(input: unknown): string {
  try {
    parseStageConfig(input, 'stage.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).kind).toBe('config_invalid');
    return (error as ConfigurationError).message;
  }
  throw new Error('the configuration was accepted');
}
