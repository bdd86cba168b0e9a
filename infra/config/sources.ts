import { z } from 'zod';
import { isSourcesConfigError, loadSources } from '../../shared/sources/index.js';

/** Secrets Manager names: letters, digits and /_+=.@- . */
export const SecretName = z.string().regex(/^[A-Za-z0-9/_+=.@-]{1,512}$/, 'a Secrets Manager secret name');

/** A source name is the last path segment of its webhook route (`/webhooks/<name>`). */
export const SourceName = z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, '1-32 lower-case letters, digits or -');

/**
 * One webhook source of a stage: the name of its webhook secret (infrastructure only) and, beside
 * it, the source's settings exactly as receive-webhook reads them from SOURCES_CONFIG (`kind`,
 * `externalKey`, `amount`, `pointTitle`, `refundTitle`, `expiryDays`, `testOrders`, ...).
 * The settings are validated by the intake's own schemas (shared/sources), so the stage file and
 * the deployed function can never disagree about what is valid.
 */
export const SourceConfig = z.looseObject({
  /**
   * Secrets Manager secret with this source's webhook secrets ({"secrets": ["current", ...]}); the
   * stack creates it empty. Default `<secretPrefix>/webhook/<source>`.
   */
  webhookSecretName: SecretName.optional(),
});
export type SourceConfig = z.infer<typeof SourceConfig>;

type SourcesConfigJson = Record<string, Record<string, unknown> | false>;

/**
 * SOURCES_CONFIG for receive-webhook: each configured source's settings, and `false` for any source
 * the receiver would otherwise enable by default (a source without a route must not be live).
 */
export function sourcesConfig(sources: Record<string, SourceConfig>): SourcesConfigJson {
  const configured: SourcesConfigJson = Object.fromEntries(
    Object.entries(sources).map(([name, { webhookSecretName: _infraOnly, ...settings }]) => [name, settings]),
  );
  const enabledByDefault = [...loadSources(JSON.stringify(configured)).keys()].filter((n) => !(n in configured));
  return { ...configured, ...Object.fromEntries(enabledByDefault.map((n) => [n, false as const])) };
}

/** The intake's verdict on the sources' settings: undefined when valid, else its message. */
export function sourcesProblem(sources: Record<string, SourceConfig>): string | undefined {
  try {
    sourcesConfig(sources);
    return undefined;
  } catch (error) {
    if (isSourcesConfigError(error)) return error.message;
    throw error;
  }
}

/**
 * A production stage names the shop of each Shopify source (`shopDomains`): one app secret signs for every
 * shop the app is installed on, so without it intake and the App Proxy take any `*.myshopify.com` shop
 * signing with it. Undefined when every Shopify source names one (or the stage is no production stage).
 */
export function shopDomainsProblem(stage: { production: boolean; sources: Record<string, SourceConfig> }): string | undefined {
  if (!stage.production || sourcesProblem(stage.sources) !== undefined) return undefined;
  for (const [name, source] of loadSources(JSON.stringify(sourcesConfig(stage.sources)))) {
    if (source.kind !== 'shopify' || (source.customerLinking?.().shopDomains.length ?? 0) > 0) continue;
    return `sources.${name}.shopDomains: a production stage names its shop (["<shop>.myshopify.com"]); without it any shop signing with the app's secret is taken`;
  }
  return undefined;
}
