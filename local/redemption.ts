import { ConfigurationError } from '../shared/config/index.js';
import { REDEMPTION_DEFAULT_GRACE_SECONDS, RedemptionSettings, REDEMPTION_DEFAULT_VALID_SECONDS } from '../shared/sources/index.js';
import { type RedemptionDeps, shopCurrencyProblem, sweepRedemptions, sweepSummary } from '../shared/redemption/index.js';
import { type HttpAnswer, jsonAnswer } from './http/index.js';
import { withSourceDefaults } from '../stand-ins/sources-config.js';

/**
 * `npm start`'s Shopify redemption: enabled, with SHOPIFY_REDEMPTION_VALUE_PER_POINT (default 1),
 * SHOPIFY_REDEMPTION_MIN_POINTS (100), SHOPIFY_REDEMPTION_STEP (1), SHOPIFY_REDEMPTION_VALID_SECONDS
 * (30 days), SHOPIFY_REDEMPTION_COMBINES_WITH_SHIPPING (true) and SHOPIFY_REDEMPTION_GRACE_SECONDS (3600: the sweep's wait after a code's end) going into SOURCES_CONFIG as `shopify.redemption`, read by the same schema as a stage
 * file's `redemption`; a configuration that sets the Shopify source's `redemption` itself wins.
 */
export const SHOPIFY_REDEMPTION_ENV = {
  valuePerPoint: 'SHOPIFY_REDEMPTION_VALUE_PER_POINT',
  minPoints: 'SHOPIFY_REDEMPTION_MIN_POINTS',
  step: 'SHOPIFY_REDEMPTION_STEP',
  validSeconds: 'SHOPIFY_REDEMPTION_VALID_SECONDS',
  combinesWithShipping: 'SHOPIFY_REDEMPTION_COMBINES_WITH_SHIPPING',
  graceSeconds: 'SHOPIFY_REDEMPTION_GRACE_SECONDS',
} as const;

const LOCAL_DEFAULTS = {
  valuePerPoint: '1',
  minPoints: 100,
  step: 1,
  validSeconds: REDEMPTION_DEFAULT_VALID_SECONDS,
  combinesWithShipping: true,
  graceSeconds: REDEMPTION_DEFAULT_GRACE_SECONDS,
};

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const text = env[name]?.trim();
  if (text === undefined || text === '') return fallback;
  if (text !== 'true' && text !== 'false') throw new ConfigurationError('invalid_local_config', `${name} must be true or false`);
  return text === 'true';
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name]?.trim();
  if (text === undefined || text === '') return fallback;
  if (!/^\d{1,10}$/.test(text)) throw new ConfigurationError('invalid_local_config', `${name} must be a whole number`);
  return Number(text);
}

/** The local redemption settings, checked by the stage's schema (a bad value names its variable). */
export function localRedemption(env: NodeJS.ProcessEnv): RedemptionSettings {
  const wanted = {
    enabled: true,
    valuePerPoint: env[SHOPIFY_REDEMPTION_ENV.valuePerPoint]?.trim() || LOCAL_DEFAULTS.valuePerPoint,
    minPoints: integer(env, SHOPIFY_REDEMPTION_ENV.minPoints, LOCAL_DEFAULTS.minPoints),
    step: integer(env, SHOPIFY_REDEMPTION_ENV.step, LOCAL_DEFAULTS.step),
    validSeconds: integer(env, SHOPIFY_REDEMPTION_ENV.validSeconds, LOCAL_DEFAULTS.validSeconds),
    combinesWithShipping: flag(env, SHOPIFY_REDEMPTION_ENV.combinesWithShipping, LOCAL_DEFAULTS.combinesWithShipping),
    graceSeconds: integer(env, SHOPIFY_REDEMPTION_ENV.graceSeconds, LOCAL_DEFAULTS.graceSeconds),
  };
  const parsed = RedemptionSettings.safeParse(wanted);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = String(issue?.path[0] ?? '') as keyof typeof SHOPIFY_REDEMPTION_ENV;
    throw new ConfigurationError(
      'invalid_local_config',
      `${SHOPIFY_REDEMPTION_ENV[key] ?? 'SHOPIFY_REDEMPTION_*'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}

export function withShopifyRedemption(sourcesConfig: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  return withSourceDefaults(sourcesConfig, 'shopify', { redemption: localRedemption(env) });
}

/** At start, as a deployed function before its first redemption: the shop's currency is the setting's, else the stack does not start. */
export async function refuseShopMismatch(deps: RedemptionDeps): Promise<void> {
  const problem = await shopCurrencyProblem(deps);
  if (problem) throw new ConfigurationError('invalid_local_config', `redemption: ${problem}`);
}

/** `npm start`'s sweep: every minute, unused codes past their end are ended and their points given back. */
export const SWEEP_INTERVAL_MS = 60_000;

export function startSweepTicker(deps: RedemptionDeps, log: (line: string) => void, intervalMs = SWEEP_INTERVAL_MS): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepRedemptions(deps)
      .then((r) => {
        if (r.due > 0 || r.mirrorsOpen > 0) log(`[redemptions] ${sweepSummary(r)}`);
      })
      .catch((e: unknown) => log(`[redemptions] sweep failed: ${e instanceof Error ? e.name : 'error'}`))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** POST /__local/redemptions/sweep: the sweep now (the demo, `npm run redemptions -- sweep` may use it). Loopback only. */
export const LOCAL_SWEEP_PATH = '/__local/redemptions/sweep';

export function sweepRoute(deps: () => RedemptionDeps | undefined): Record<string, () => Promise<HttpAnswer>> {
  return {
    [`POST ${LOCAL_SWEEP_PATH}`]: async () => {
      const d = deps();
      if (d === undefined) return jsonAnswer(404, { error: 'the shopify source does not redeem points' });
      const result = await sweepRedemptions(d);
      return jsonAnswer(200, { ...result, summary: sweepSummary(result) });
    },
  };
}
