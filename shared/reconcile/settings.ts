import * as z from 'zod';
import { ConfigurationError } from '../config/index.js';
import { parseJsonOrUndefined } from '../text/index.js';
import { lazySchema } from '../schema/index.js';

/** RECONCILE_SOURCES, as the stack writes it for the scheduled reconcile function. */
export const ReconcileSources = lazySchema(() =>
  z.record(
    z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/),
    z
      .object({
        shopDomain: z.string().regex(/^[a-z0-9][a-z0-9-]*\.myshopify\.com$/),
        accessTokenSecretArn: z.string().min(1),
        lookbackHours: z.number().int().min(1).max(72),
        settleMinutes: z.number().int().min(0).max(60),
      })
      .strict(),
  ),
);
export type ReconcileSources = z.infer<typeof ReconcileSources>;

export function reconcileSourcesFrom(json: string | undefined): ReconcileSources {
  const value = parseJsonOrUndefined(json ?? '');
  if (value === undefined) {
    throw new ConfigurationError(
      'invalid_reconcile_settings',
      'RECONCILE_SOURCES must be JSON {source: {shopDomain, accessTokenSecretArn, lookbackHours, settleMinutes}}',
    );
  }
  const parsed = ReconcileSources.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigurationError(
      'invalid_reconcile_settings',
      `RECONCILE_SOURCES.${(issue?.path ?? []).map(String).join('.')}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}
