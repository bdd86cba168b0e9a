import { ConfigurationError } from '../shared/config/index.js';
import type { DueEarns } from '../shared/points/index.js';
import { earnAfterFromText, smaregiEarnAfterRefusal } from '../shared/sources/index.js';
import { withSourceDefaults } from '../stand-ins/sources-config.js';

/**
 * `npm start`'s provisional points (issue 53): SHOPIFY_EARN_AFTER (`paid` default, `fulfilled`, `days:N`)
 * goes into SOURCES_CONFIG as `shopify.earnAfter`, the stage's setting, read by the same schema; unless the
 * configuration sets it itself. A bad value stops the start with the variable's name.
 */
export const SHOPIFY_EARN_AFTER_ENV = 'SHOPIFY_EARN_AFTER';
/** Smaregi sales earn at the sale for now (docs/campaigns.md, limits): anything else is refused rather than ignored. */
export const SMAREGI_EARN_AFTER_ENV = 'SMAREGI_EARN_AFTER';

export function withShopifyEarnAfter(sourcesConfig: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const smaregi = env[SMAREGI_EARN_AFTER_ENV]?.trim() || undefined;
  if (smaregi !== undefined && smaregi !== 'paid') {
    throw new ConfigurationError('invalid_local_config', `${SMAREGI_EARN_AFTER_ENV} must be paid: ${smaregiEarnAfterRefusal(smaregi)}`);
  }
  const text = env[SHOPIFY_EARN_AFTER_ENV]?.trim() || undefined;
  if (text === undefined) return sourcesConfig;
  const read = earnAfterFromText(text);
  if (!read.ok) throw new ConfigurationError('invalid_local_config', `${SHOPIFY_EARN_AFTER_ENV} ${read.message}`);
  return withSourceDefaults(sourcesConfig, 'shopify', { earnAfter: read.setting });
}

/** `npm start`'s `days` ticker: every minute, as the stack's schedule runs the worker's (infra/constructs/earn-schedule.ts). */
export const EARN_TICK_INTERVAL_MS = 60_000;

export function startEarnTicker(
  earnDue: () => Promise<DueEarns>,
  log: (line: string) => void,
  intervalMs = EARN_TICK_INTERVAL_MS,
): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    earnDue()
      .then((r) => {
        if (r.due > 0) log(`[provisional] due=${r.due} earned=${r.done} retry=${r.retry}`);
      })
      .catch((e: unknown) => log(`[provisional] tick failed: ${e instanceof Error ? e.name : 'error'}`))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
