import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_USER_AGENT } from '../../../../shared/http-client/index.js';

describe('the User-Agent version', () => {
  it("names package.json's version, so a release bump shows in every upstream call", () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '../../../../package.json'), 'utf8')) as { version: string };
    expect(DEFAULT_USER_AGENT).toBe(`loyalty-points-bridge/${manifest.version}`);
  });
});
