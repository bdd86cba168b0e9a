import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (file: string) => JSON.parse(readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8'));

describe('install scripts of the dependencies (docs/security.md)', () => {
  it('has a recorded decision in package.json allowScripts for every locked package with an install script', () => {
    const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && p.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    const decided = Object.keys((read('package.json') as { allowScripts?: Record<string, boolean> }).allowScripts ?? {}).map((k) =>
      k.replace(/(?<=.)@[^@]*$/, ''),
    );
    expect(withScripts.filter((name) => !decided.includes(name))).toEqual([]);
  });
});
