import { settleTillMirrors, type TillMirrorDeps } from '../shared/sources/smaregi/index.js';

/**
 * `npm start`'s till mirror ticker (tillPoints membership): every minute, the mirror steps an attempt
 * left unfinished are finished (settleTillMirrors), as the nightly audit does in AWS
 * (functions/audit-ledger.ts). A conflict is logged by the step; `npm run smaregi -- mirrors` lists it.
 */
export const TILL_MIRROR_INTERVAL_MS = 60_000;

export function startTillMirrorTicker(
  deps: TillMirrorDeps,
  log: (line: string) => void,
  intervalMs = TILL_MIRROR_INTERVAL_MS,
): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    settleTillMirrors(deps)
      .then((n) => {
        if (n > 0) log(`[till-mirror] went through ${n} unfinished step(s)`);
      })
      .catch((e: unknown) => log(`[till-mirror] settle failed: ${e instanceof Error ? e.name : 'error'}`))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
