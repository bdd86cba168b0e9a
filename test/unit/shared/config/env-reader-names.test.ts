import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../../..');

/** The primitive readers every named reader is built on (one setting by name). */
const PRIMITIVES = new Set(['requiredSetting', 'envText', 'envList', 'envInteger']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Exported functions whose first parameter is the process environment: `name (file)`. */
function environmentReaders(): string[] {
  const readers: string[] = [];
  for (const dir of ['shared', 'functions']) {
    for (const file of sourceFiles(join(ROOT, dir))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/export (?:async )?function (\w+)(?:<[^>]*>)?\(\s*env\??:/g)) {
        readers.push(`${m[1]} (${relative(ROOT, file)})`);
      }
    }
  }
  return readers;
}

describe('environment readers', () => {
  it('are all named <what>FromEnv, apart from the primitive readers of one setting', () => {
    const readers = environmentReaders();
    expect(readers.length).toBeGreaterThan(10);
    const misnamed = readers.filter((r) => {
      const name = r.split(' ')[0] ?? '';
      return !name.endsWith('FromEnv') && !PRIMITIVES.has(name);
    });
    expect(misnamed).toEqual([]);
  });
});
