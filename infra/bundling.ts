import type { BuildOptions } from 'esbuild';
import { FUNCTION_ENTRIES, FUNCTION_EXTERNAL_MODULES } from './paths.js';

/**
 * How every function is bundled, in one place: the CDK stack (infra/constructs/bundled-function.ts,
 * NodejsFunction's local esbuild) and the bench (bench/bundles.ts, esbuild's API) both take their
 * options from here, so the bench measures the code the stack deploys. The fields are those both
 * sides understand; CDK adds `--bundle --platform=node` itself, the bench adds them in `esbuildOptions`.
 */
export type FunctionCode = keyof typeof FUNCTION_ENTRIES;

export const FUNCTION_BUNDLE = {
  format: 'esm',
  target: 'node24',
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  /** The functions' NODE_OPTIONS: stack traces point into the TypeScript sources (the bundle ships its .map). */
  nodeOptions: '--enable-source-maps',
  mainFields: ['module', 'main'],
  // CommonJS dependencies call require(); give the ESM bundle one.
  banner: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
} as const;

/** The function's file name, as the stack's asset and the bench's figures name it (e.g. `process-events`). */
export const functionName = (code: FunctionCode): string => FUNCTION_ENTRIES[code].split(/[\\/]/).pop()?.replace(/\.ts$/, '') ?? code;

/** The same bundle through esbuild's API: what `cdk synth` runs for `code`, written to `outfile`. */
export function esbuildOptions(code: FunctionCode, outfile: string): BuildOptions {
  return {
    entryPoints: [FUNCTION_ENTRIES[code]],
    outfile,
    bundle: true,
    platform: 'node',
    format: FUNCTION_BUNDLE.format,
    target: FUNCTION_BUNDLE.target,
    minify: FUNCTION_BUNDLE.minify,
    sourcemap: FUNCTION_BUNDLE.sourceMap,
    sourcesContent: FUNCTION_BUNDLE.sourcesContent,
    mainFields: [...FUNCTION_BUNDLE.mainFields],
    external: [...FUNCTION_EXTERNAL_MODULES[code]],
    banner: { js: FUNCTION_BUNDLE.banner },
    logLevel: 'silent',
  };
}
