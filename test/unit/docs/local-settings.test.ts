import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LOCAL_ENV } from '../../../kit/local-stack/config.js';

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

/** The variables named in the first cell of a markdown table's rows. */
const tableVariables = (text: string) => new Set([...text.matchAll(/^\| `([A-Z_]+)`/gm)].map((m) => m[1]!));

describe('docs/local.md settings table', () => {
  const documented = tableVariables(read('docs/local.md'));

  it('lists every port npm start reads', () => {
    const ports = Object.values(LOCAL_ENV).filter((v) => v.endsWith('PORT'));
    expect(ports.filter((p) => !documented.has(p))).toEqual([]);
  });

  it('lists every port the README lists', () => {
    const readmePorts = [...tableVariables(read('README.md'))].filter((v) => v.endsWith('_PORT') || v === 'PORT');
    expect(readmePorts.length).toBeGreaterThan(0);
    expect(readmePorts.filter((p) => !documented.has(p))).toEqual([]);
  });
});
