import { ConfigurationError } from '../shared/config/index.js';

/**
 * Why an operator command could not run:
 * - `usage`: arguments it cannot take; printed with the command's usage;
 * - `invalid_arguments`: arguments of a subcommand it cannot take (quarantine's), printed alone;
 * - `aws_target`: the deployed stage is not there as the command needs it (outputs, configuration);
 * - `not_a_shopify_source`: the source named is missing or not a Shopify source;
 * - `clock_skew`: this machine's clock is too far off a server's to judge leases by (ops/clock-skew.ts).
 * No local stack on PORT is kit/local-stack/connect.ts's ConfigurationError of kind no_local_stack.
 */
export type OpsErrorKind = 'usage' | 'invalid_arguments' | 'aws_target' | 'not_a_shopify_source' | 'clock_skew';

export class OpsError extends ConfigurationError<OpsErrorKind> {
  override name = 'OpsError';
}

export const isUsageError = (e: unknown): e is OpsError => e instanceof OpsError && e.kind === 'usage';

/** The usage error for a `--source` the stack does not configure, naming those it does. */
export function unknownSourceError(source: string, configured: Iterable<string>): OpsError {
  return new OpsError('usage', `no source ${source} is configured here (configured: ${[...configured].join(', ')})`);
}
