import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConditionalCheckFailedException, ResourceInUseException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';

/**
 * Every error class the modules export sets `name` to its class name (logs print `name: message`, and a
 * minified bundle would otherwise print a mangled or inherited one), and each module's errors share one
 * root class. Read from each module's public face (`index.ts`) and its `errors.ts`.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Every folder's index.ts and errors.ts, but the tests', the stack's (CDK), the benches', the Lambda entries' and tools'. */
const MODULE_FILE = /^(?!(?:test|infra|bench|chaos|functions|tools)\/)(?:[\w-]+\/)+(index|errors)\.ts$/;

type ErrorClass = abstract new (...args: never[]) => Error;

/** The AWS SDK's, re-exported by shared/dynamodb: not ours to name. */
const THIRD_PARTY = new Set<unknown>([ConditionalCheckFailedException, ResourceInUseException]);

const isErrorClass = (value: unknown): value is ErrorClass =>
  typeof value === 'function' && value.prototype instanceof Error && !THIRD_PARTY.has(value);

/** An instance made with the first argument list its constructor takes (the class fields set `name`). */
function instanceOf(cls: ErrorClass): Error {
  const tries: unknown[][] = [[], ['kind', 'message'], [{ kind: 'kind', executed: 'no' }]];
  for (const args of tries) {
    try {
      return Reflect.construct(cls, args) as Error;
    } catch {
      // the next argument list
    }
  }
  throw new Error(`cannot construct ${cls.name}: add an argument list it takes to this test`);
}

/** Error classes by the folder of the file exporting them; a class re-exported upwards stays with the deepest folder. */
async function errorClassesByModule(): Promise<Map<string, Set<ErrorClass>>> {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], { cwd: ROOT, encoding: 'utf8' });
  const files = listed.split('\n').filter((f) => MODULE_FILE.test(f) && existsSync(resolve(ROOT, f)));
  const home = new Map<ErrorClass, string>();
  for (const file of files) {
    const exported = (await import(pathToFileURL(resolve(ROOT, file)).href)) as Record<string, unknown>;
    for (const value of Object.values(exported)) {
      if (!isErrorClass(value)) continue;
      const dir = dirname(file);
      const known = home.get(value);
      if (known === undefined || dir.length > known.length) home.set(value, dir);
    }
  }
  const byModule = new Map<string, Set<ErrorClass>>();
  for (const [cls, dir] of home) byModule.set(dir, (byModule.get(dir) ?? new Set()).add(cls));
  return byModule;
}

describe('error classes', async () => {
  const byModule = await errorClassesByModule();
  const all = [...byModule.values()].flatMap((set) => [...set]);

  it('finds the modules’ error classes', () => {
    expect(all.length).toBeGreaterThan(20);
  });

  it('every exported error class sets name to its class name', () => {
    const wrong = all.map((cls) => [cls.name, instanceOf(cls).name]).filter(([cls, name]) => cls !== name);
    expect(wrong).toEqual([]);
  });

  it('each module’s error classes extend one root class of that module', () => {
    const modulesWithSeveralRoots = [...byModule].flatMap(([dir, classes]) => {
      const roots = [...classes].filter((cls) => !classes.has(Object.getPrototypeOf(cls) as ErrorClass));
      return roots.length > 1 ? [`${dir}: ${roots.map((r) => r.name).join(', ')}`] : [];
    });
    expect(modulesWithSeveralRoots).toEqual([]);
  });
});
