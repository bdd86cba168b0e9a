import { readdirSync, readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptions, type FunctionCode } from '../../../infra/bundling.js';
import { FUNCTION_ENTRIES } from '../../../infra/paths.js';

const root = new URL('../../../', import.meta.url);
const text = (file: string) => readFileSync(new URL(file, root), 'utf8');
const json = (file: string) => JSON.parse(text(file)) as Record<string, unknown>;

/** Licences a shipped dependency may carry without a decision recorded here (all permissive, Apache-2.0 compatible). */
const PERMISSIVE = ['Apache-2.0', 'MIT', 'MIT-0', 'ISC', 'BSD-2-Clause', 'BSD-3-Clause', '0BSD'];

/** The npm packages whose code a Lambda bundle carries (esbuild's metafile: bytes in the output), over every function. */
async function shippedPackages(): Promise<string[]> {
  const names = new Set<string>();
  for (const code of Object.keys(FUNCTION_ENTRIES) as FunctionCode[]) {
    const result = await build({ ...esbuildOptions(code, `/tmp/licence-${code}.mjs`), metafile: true, write: false });
    for (const output of Object.values(result.metafile.outputs))
      for (const [file, input] of Object.entries(output.inputs)) {
        const name = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1];
        if (name && input.bytesInOutput > 0) names.add(name);
      }
  }
  return [...names].sort();
}

const packageLicence = (name: string) => json(`node_modules/${name}/package.json`).license;
const shipsNotice = (name: string) => readdirSync(new URL(`node_modules/${name}/`, root)).some((f) => /^notice/i.test(f));
/** NOTICE names a package by its name or by its scope (`@aws-sdk/*`). */
const named = (notice: string, name: string) => notice.includes(name) || notice.includes(`${name.split('/')[0]}/*`);

describe('the licence (Apache-2.0)', () => {
  it('ships the full text of the Apache License 2.0 at the root', () => {
    const licence = text('LICENSE');
    expect(licence).toMatch(/^\s+Apache License\n\s+Version 2\.0, January 2004\n/);
    for (let section = 1; section <= 9; section++) expect(licence).toMatch(new RegExp(`\\n\\s+${section}\\. [A-Z]`));
    expect(licence).toContain('END OF TERMS AND CONDITIONS');
  });

  it('is named in package.json and in the lockfile, so npm ci keeps the two in step', () => {
    expect(json('package.json').license).toBe('Apache-2.0');
    const lock = json('package-lock.json') as { packages: Record<string, { license?: string }> };
    expect(lock.packages['']?.license).toBe('Apache-2.0');
  });
});

describe("NOTICE and the Lambda bundles' dependencies", () => {
  let shipped: string[] = [];
  const notice = text('NOTICE');
  beforeAll(async () => {
    shipped = await shippedPackages();
  }, 60_000);

  it('finds the dependencies the bundles carry (the AWS SDK among them)', () => {
    expect(shipped).toContain('@aws-sdk/client-dynamodb');
    expect(shipped).toContain('zod');
  });

  it('ships no dependency under a licence that is not a permissive one (add a decision here before one does)', () => {
    expect(shipped.filter((name) => !PERMISSIVE.includes(String(packageLicence(name))))).toEqual([]);
  });

  it('names in NOTICE every shipped dependency that carries a NOTICE file of its own (Apache-2.0 §4(d))', () => {
    expect(shipped.filter((name) => shipsNotice(name) && !named(notice, name))).toEqual([]);
  });

  it('names in NOTICE every shipped Apache-2.0 dependency, by name or scope', () => {
    expect(shipped.filter((name) => packageLicence(name) === 'Apache-2.0' && !named(notice, name))).toEqual([]);
  });
});
