import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

/**
 * The page's times are formatted by shared/time's own code, not a copy of its Intl options: at start the
 * console builds shared/time (its public face, with formatJst) into one browser module, served as
 * `jst.js` beside the page, which console.js imports. One source, so the page, the operator commands and
 * the storefront cannot drift apart. Built once per server (a few ms); a build that fails fails the start.
 */
const TIME_MODULE = fileURLToPath(new URL('../shared/time/index.ts', import.meta.url));

/** shared/time as an ES module for the browser (no Node API in it: Intl and Date only). */
export function buildTimeModule(): Buffer {
  const built = buildSync({
    entryPoints: [TIME_MODULE],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const [file] = built.outputFiles;
  if (!file) throw new Error(`esbuild wrote nothing for ${TIME_MODULE}`);
  return Buffer.from(file.contents);
}
