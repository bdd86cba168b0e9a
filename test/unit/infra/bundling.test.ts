import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { esbuildOptions, FUNCTION_BUNDLE, type FunctionCode, functionName } from '../../../infra/bundling.js';
import { FUNCTION_ENTRIES, FUNCTION_EXTERNAL_MODULES, REPO_ROOT } from '../../../infra/paths.js';

const run = promisify(execFile);
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

/** The worker bundled from the stack's definition, built once for the tests that import it. */
let worker: Promise<string> | undefined;
const workerBundle = (): Promise<string> => {
  worker ??= (async () => {
    const dir = await mkdtemp(join(REPO_ROOT, 'node_modules', '.cache-bundling-test-'));
    dirs.push(dir);
    const outfile = join(dir, 'process-events.mjs');
    await build(esbuildOptions('processEvents', outfile));
    return outfile;
  })();
  return worker;
};

/** What the worker's import may rely on: the stack's two settings, the region and credentials. */
const WORKER_ENV = {
  PATH: process.env.PATH ?? '',
  LEDGER_TABLE: 'ledger',
  OPENAPI_SECRET_ARN: 'arn:aws:secretsmanager:ap-northeast-1:000000000000:secret:openapi',
  AWS_REGION: 'ap-northeast-1',
  AWS_ACCESS_KEY_ID: 'AKIATEST',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

describe('function bundling (one definition for the stack and the bench)', () => {
  it("gives esbuild the stack's entry, externals and options", () => {
    const options = esbuildOptions('processEvents', '/tmp/out.mjs');
    expect(options.entryPoints).toEqual([join(REPO_ROOT, 'functions', 'process-events.ts')]);
    expect(options.external).toEqual([...FUNCTION_EXTERNAL_MODULES.processEvents]);
    expect(options).toMatchObject({ format: FUNCTION_BUNDLE.format, target: FUNCTION_BUNDLE.target, minify: true, bundle: true });
    expect(functionName('processEvents')).toBe('process-events');
  });

  it('builds a worker bundle that imports with only the ledger table, the Open API secret, the region and credentials set', async () => {
    const outfile = await workerBundle();
    const probe = `const m = await import(${JSON.stringify(outfile)}); console.log(typeof m.handler);`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe], { env: WORKER_ENV, cwd: tmpdir() });
    expect(stdout.trim()).toBe('function');
  }, 60_000);

  it('builds no zod schema while the worker bundle is imported (schemas are built on first use)', async () => {
    const outfile = await workerBundle();
    // zod gives every schema it builds its `_zod` internals with Object.defineProperty: count those, and
    // name where in our code each was built (source-mapped), so a failure says which schema to make lazy.
    // The probe then builds one schema with the repository's zod, to show the count sees a schema built.
    const probe = [
      'const define = Object.defineProperty;',
      'let built = 0;',
      'const sites = new Set();',
      'Error.stackTraceLimit = 50;',
      'Object.defineProperty = function (o, key, d) {',
      "  if (key === '_zod') {",
      '    built += 1;',
      "    const site = new Error().stack.split('\\n').find((l) => /\\/(shared|functions)\\//.test(l) && !l.includes('shared/schema/'));",
      "    if (site) sites.add(site.trim().replace(/^.*\\/((shared|functions)\\/[^:]+:\\d+).*$/, '$1'));",
      '  }',
      '  return define.call(this, o, key, d);',
      '};',
      `await import(${JSON.stringify(outfile)});`,
      'const atImport = built;',
      `const z = await import(${JSON.stringify(join(REPO_ROOT, 'node_modules', 'zod', 'index.js'))});`,
      'z.string();',
      'console.log(JSON.stringify({ atImport, builtAt: [...sites].slice(0, 10), probeBuilt: built - atImport }));',
    ].join('\n');
    const { stdout } = await run(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', probe], {
      env: WORKER_ENV,
      cwd: tmpdir(),
    });
    expect(JSON.parse(stdout.trim())).toEqual({ atImport: 0, builtAt: [], probeBuilt: 1 });
  }, 60_000);

  it('imports no bundled module of the worker lazily, so each module is evaluated once at top level', async () => {
    // In one output file a lazy import() or require() of a bundled module saves no parsing (the code is in
    // the file either way), but it makes esbuild wrap that module and all it imports in lazy-init
    // functions (its `__esm` helper), which V8 parses a second time when the import calls them: the
    // worker's load paid for it. Identifiers kept so the helper can be seen; nothing else differs.
    const options = {
      ...esbuildOptions('processEvents', join(tmpdir(), 'lazy-processEvents.mjs')),
      minify: false,
      minifySyntax: true,
      minifyWhitespace: true,
    };
    const result = await build({ ...options, write: false });
    const code = result.outputFiles.find((f) => f.path.endsWith('.mjs'))?.text ?? '';
    expect(code).toContain('export{');
    const wrapped = [...code.matchAll(/(init_[\w$]+)=__esm\(/g)].map((m) => m[1]);
    expect(wrapped).toEqual([]);
  }, 60_000);

  it('declares as runtime dependencies exactly the packages some function ships (bundled or taken from the Lambda runtime)', async () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const shipped = new Set<string>();
    const packageOf = (path: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
    for (const code of Object.keys(FUNCTION_ENTRIES) as FunctionCode[]) {
      // Externals stay imports in the metafile: the runtime's SDK is shipped by AWS but still used.
      const result = await build({ ...esbuildOptions(code, join(tmpdir(), `deps-${code}.mjs`)), write: false, metafile: true });
      for (const input of Object.keys(result.metafile.inputs)) {
        const name = packageOf(input);
        if (name) shipped.add(name);
      }
      for (const output of Object.values(result.metafile.outputs))
        for (const imported of output.imports)
          if (imported.external && !imported.path.startsWith('node:'))
            shipped.add(
              imported.path
                .split('/')
                .slice(0, imported.path.startsWith('@') ? 2 : 1)
                .join('/'),
            );
    }
    const unused = Object.keys(pkg.dependencies).filter((d) => !shipped.has(d));
    expect(unused).toEqual([]);
  }, 120_000);
});
