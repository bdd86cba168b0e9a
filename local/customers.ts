import { ConfigurationError } from '../shared/config/index.js';
import { withSourceDefaults } from '../stand-ins/sources-config.js';

/**
 * `npm start`'s Shopify enrolment: SHOPIFY_ENROLMENT (`off` default, or `register`) goes into
 * SOURCES_CONFIG as `shopify.enrolment`, unless the configuration sets the Shopify source itself.
 */
export const SHOPIFY_ENROLMENT_ENV = 'SHOPIFY_ENROLMENT';

export function withShopifyEnrolment(sourcesConfig: string | undefined, enrolment: string | undefined): string | undefined {
  const value = enrolment?.trim() || undefined;
  if (value === undefined) return sourcesConfig;
  if (value !== 'off' && value !== 'register')
    throw new ConfigurationError('invalid_local_config', `${SHOPIFY_ENROLMENT_ENV} must be off or register`);
  return withSourceDefaults(sourcesConfig, 'shopify', { enrolment: value });
}
