import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { FUNCTION_EXTERNAL_MODULES } from '../infra/paths.js';

/**
 * Bundle size and module load time of each function, built the way the CDK stack builds them
 * (infra/constructs/bundled-function.ts: esbuild, ESM, minified; the receiver without the AWS SDK,
 * which the Lambda runtime provides, the worker with it). Load time is measured in a fresh Node
 * process per sample: what a Lambda cold start pays to evaluate the module (the handlers build their
 * dependencies lazily, on the first event); a module left out is loaded from node_modules.
 */

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * Each function with the modules left out of its bundle, as infra/stacks/integration-stack.ts builds it:
 * the receiver takes the Lambda runtime's AWS SDK, the worker bundles the pinned one.
 */
export const FUNCTIONS = [
  { name: 'receive-webhook', external: FUNCTION_EXTERNAL_MODULES.receiveWebhook },
  { name: 'process-events', external: FUNCTION_EXTERNAL_MODULES.processEvents },
] as const;

export interface BundleFigures {
  name: string;
  /** Modules left out of the bundle (provided by the Lambda runtime). */
  external: string[];
  /** Minified bundle, bytes (source map not counted). */
  bytes: number;
  gzipBytes: number;
  /** Median module evaluation time in a fresh process, ms. */
  loadMsP50: number;
  loadMsMax: number;
  samples: number;
}

export async function runBundleBench(options: { samples?: number } = {}): Promise<BundleFigures[]> {
  const samples = options.samples ?? 5;
  const outDir = join(ROOT, 'node_modules', '.cache', 'bench-bundles');
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const results: BundleFigures[] = [];
  for (const { name, external } of FUNCTIONS) {
    const entry = join(ROOT, 'functions', `${name}.ts`);
    if (!existsSync(entry)) continue;
    const outfile = join(outDir, `${name}.mjs`);
    await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      minify: true,
      sourcemap: true,
      sourcesContent: false,
      mainFields: ['module', 'main'],
      external: [...external],
      banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
      logLevel: 'silent',
    });
    const bytes = (await stat(outfile)).size;
    const gzipBytes = gzipSync(await readFile(outfile)).length;

    const probe = join(outDir, `load-${name}.mjs`);
    await writeFile(
      probe,
      `const t0 = performance.now(); await import(${JSON.stringify(outfile)}); console.log(JSON.stringify({ ms: performance.now() - t0 }));\n`,
    );
    const times: number[] = [];
    for (let i = 0; i < samples; i += 1) {
      const { stdout } = await run(process.execPath, [probe], {
        env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      });
      times.push((JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { ms: number }).ms);
    }
    times.sort((a, b) => a - b);
    results.push({
      name,
      external: [...external],
      bytes,
      gzipBytes,
      loadMsP50: round(times[Math.floor(times.length / 2)] ?? 0),
      loadMsMax: round(times[times.length - 1] ?? 0),
      samples,
    });
  }
  return results;
}

const round = (n: number): number => Math.round(n * 10) / 10;
