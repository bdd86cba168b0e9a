import { ConfigurationError } from '../shared/config/index.js';
import type { DueEarns } from '../shared/points/index.js';
import { earnAfterFromText, smaregiEarnAfterRefusal } from '../shared/sources/index.js';
import { withSourceDefaults } from '../stand-ins/sources-config.js';

/**
 * `npm start`'s provisional points (issue 53): SHOPIFY_EARN_AFTER (`paid` default, `fulfilled`, `days:N`)
 * goes into SOURCES_CONFIG as `shopify.earnAfter`, SMAREGI_EARN_AFTER (`paid` default, `days:N`) as
 * `smaregi.earnAfter`: the stage's setting, read by the same schema; unless the configuration sets it
 * itself. A bad value stops the start with the variable's name.
 */
export const SHOPIFY_EARN_AFTER_ENV = 'SHOPIFY_EARN_AFTER';
/** A till sale has no fulfilment: `fulfilled` is refused, with why (smaregiEarnAfterRefusal). */
export const SMAREGI_EARN_AFTER_ENV = 'SMAREGI_EARN_AFTER';

/** `off`: under `fulfilled`, the order earns once at orders/fulfilled, not per shipment (the Shopify source's `partialFulfilments`; on by default). */
export const SHOPIFY_PARTIAL_FULFILMENTS_ENV = 'SHOPIFY_PARTIAL_FULFILMENTS';

export function withShopifyEarnAfter(sourcesConfig: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const config = withEarnAfter(
    withEarnAfter(sourcesConfig, env, SMAREGI_EARN_AFTER_ENV, 'smaregi'),
    env,
    SHOPIFY_EARN_AFTER_ENV,
    'shopify',
  );
  const partial = env[SHOPIFY_PARTIAL_FULFILMENTS_ENV]?.trim() || undefined;
  if (partial === undefined || partial === 'on') return config;
  if (partial !== 'off') throw new ConfigurationError('invalid_local_config', `${SHOPIFY_PARTIAL_FULFILMENTS_ENV} must be on or off`);
  return withSourceDefaults(config, 'shopify', { partialFulfilments: false });
}

function withEarnAfter(sourcesConfig: string | undefined, env: NodeJS.ProcessEnv, name: string, source: 'shopify' | 'smaregi') {
  const text = env[name]?.trim() || undefined;
  if (text === undefined) return sourcesConfig;
  if (source === 'smaregi' && text === 'fulfilled') {
    throw new ConfigurationError('invalid_local_config', `${name} must be paid or days:N: ${smaregiEarnAfterRefusal(text)}`);
  }
  const read = earnAfterFromText(text);
  if (!read.ok) {
    const message = source === 'smaregi' ? read.message.replace('paid, fulfilled or days:N', 'paid or days:N') : read.message;
    throw new ConfigurationError('invalid_local_config', `${name} ${message}`);
  }
  // `paid` is the default: the configuration stays as given (a source the stand-in does not enable gains nothing).
  if (source === 'smaregi' && read.setting === 'paid') return sourcesConfig;
  return withSourceDefaults(sourcesConfig, source, { earnAfter: read.setting });
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
