import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FUNCTIONS = join(import.meta.dirname, '../../../functions');

describe('functions/', () => {
  it('holds Lambda files of at most 120 lines each: environment, configuration, handler (the making is in shared/)', () => {
    const files = readdirSync(FUNCTIONS).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    const long = files
      .map((f) => ({ file: f, lines: readFileSync(join(FUNCTIONS, f), 'utf8').trimEnd().split('\n').length }))
      .filter((f) => f.lines > 120);
    expect(long).toEqual([]);
  });
});
