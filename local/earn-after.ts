import { ConfigurationError } from '../shared/config/index.js';
import { earnAfterFromText } from '../shared/sources/index.js';
import { withSourceDefaults } from '../stand-ins/sources-config.js';

/**
 * `npm start`'s provisional points (issue 53): SHOPIFY_EARN_AFTER (`paid` default, `fulfilled`, `days:N`)
 * goes into SOURCES_CONFIG as `shopify.earnAfter`, the stage's setting, read by the same schema; unless the
 * configuration sets it itself. A bad value stops the start with the variable's name.
 */
export const SHOPIFY_EARN_AFTER_ENV = 'SHOPIFY_EARN_AFTER';

export function withShopifyEarnAfter(sourcesConfig: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const text = env[SHOPIFY_EARN_AFTER_ENV]?.trim() || undefined;
  if (text === undefined) return sourcesConfig;
  const read = earnAfterFromText(text);
  if (!read.ok) throw new ConfigurationError('invalid_local_config', `${SHOPIFY_EARN_AFTER_ENV} ${read.message}`);
  return withSourceDefaults(sourcesConfig, 'shopify', { earnAfter: read.setting });
}
