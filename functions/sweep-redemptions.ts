import { ENV } from '../shared/config/index.js';
import { loggerFromEnv } from '../shared/logging/index.js';
import { credentialsFromEnv } from '../shared/openapi/index.js';
import {
  type RedemptionDeps,
  redemptionDepsFromEnv,
  type SweepResult,
  sweepRedemptions,
  sweepSummary,
} from '../shared/redemption/index.js';
import { loadSourceSettings } from '../shared/sources/index.js';
import { openApiClientFromEnv } from '../shared/upstream/index.js';

/**
 * sweep-redemptions: on an EventBridge schedule, ends the unused discount codes past their validity
 * (`discountCodeDeactivate`) and gives their points back, exactly once (shared/redemption/sweep.ts).
 * Input `{"source": "<name>"}` (default `shopify`).
 */

export interface SweepInput {
  source?: string;
}

export function makeHandler(depsOf: (source: string) => RedemptionDeps | undefined): (input?: SweepInput) => Promise<SweepResult> {
  return async (input) => {
    const source = typeof input?.source === 'string' ? input.source : 'shopify';
    const deps = depsOf(source);
    // A rule the stack did not write, or a source that stopped redeeming: fail loudly (function errors alarm).
    if (!deps) throw new Error(`sweep-redemptions: the ${source.slice(0, 40)} source does not redeem`);
    const result = await sweepRedemptions(deps);
    deps.logger?.info(sweepSummary(result), { source, ...result });
    return result;
  };
}

export function depsFromEnv(env: NodeJS.ProcessEnv): (source: string) => RedemptionDeps | undefined {
  const sources = loadSourceSettings(env[ENV.SOURCES_CONFIG]);
  const openapi = openApiClientFromEnv(env, credentialsFromEnv(env));
  const logger = loggerFromEnv(env, 'sweep-redemptions');
  const made = new Map<string, RedemptionDeps | undefined>();
  return (source) => {
    if (!made.has(source)) made.set(source, redemptionDepsFromEnv(env, sources, source, { openapi, logger }));
    return made.get(source);
  };
}

let lambdaHandler: ((input?: SweepInput) => Promise<SweepResult>) | undefined;

export const handler = async (input?: SweepInput): Promise<SweepResult> => {
  lambdaHandler ??= makeHandler(depsFromEnv(process.env));
  return lambdaHandler(input);
};
