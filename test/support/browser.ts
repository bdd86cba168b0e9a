import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The names a Chromium-family browser is installed under: Debian's, Ubuntu's, Google's .deb (the pipeline's). */
export const BROWSER_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'] as const;

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The browser the console's browser test drives (puppeteer-core downloads none): CHROMIUM_PATH when
 * set, else the first of BROWSER_NAMES found on PATH. Throws naming what it looked for, so a build
 * without a browser says why rather than timing out.
 */
export function findBrowser(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.CHROMIUM_PATH;
  if (given) {
    if (!executable(given)) throw new Error(`CHROMIUM_PATH=${given} is not an executable file`);
    return given;
  }
  const dirs = (env.PATH ?? '').split(delimiter).filter((d) => d !== '');
  for (const name of BROWSER_NAMES) {
    for (const dir of dirs) {
      const path = join(dir, name);
      if (executable(path)) return path;
    }
  }
  throw new Error(`no browser for the console test: set CHROMIUM_PATH, or put one of ${BROWSER_NAMES.join(', ')} on PATH`);
}
