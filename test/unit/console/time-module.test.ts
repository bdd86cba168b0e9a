import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildTimeModule } from '../../../console/time-module.js';
import { formatJst } from '../../../shared/time/index.js';

/** The module the console serves as jst.js, loaded as the browser loads it: an ES module of its own. */
async function servedModule(): Promise<{ formatJst: (instant: Date | string | number) => string }> {
  const file = join(mkdtempSync(join(tmpdir(), 'console-jst-')), 'jst.mjs');
  writeFileSync(file, buildTimeModule());
  return import(/* @vite-ignore */ pathToFileURL(file).href);
}

describe("the console's time module (jst.js, built from shared/time)", () => {
  it('formats a time as formatJst does: Japan time with its offset', async () => {
    const served = await servedModule();
    const instants = ['2026-12-01T00:30:00Z', '2026-12-31T15:00:00.000Z', '2027-03-29T01:02:03+02:00'];
    expect(instants.map((i) => served.formatJst(i))).toEqual(instants.map((i) => formatJst(i)));
    expect(served.formatJst('2026-12-01T00:30:00Z')).toBe('2026-12-01 09:30:00 JST (+09:00)');
  });
});
