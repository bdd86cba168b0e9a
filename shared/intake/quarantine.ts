import { ConfigurationError, ENV, envInteger } from '../config/index.js';
import { emfCountLine, METRIC } from '../metrics/index.js';
import { DEFAULT_QUARANTINE_TTL_DAYS, type KeepResult, type QuarantineInput } from '../quarantine/index.js';
import type { IntakeDeps } from './intake.js';

/**
 * The quarantine intake writes to, from the environment: QUARANTINE_TABLE (unset: none, and
 * unreadable deliveries are refused as before), QUARANTINE_TTL_DAYS, DYNAMODB_ENDPOINT (local only).
 * The DynamoDB client is built on the first delivery that needs it, not at cold start.
 */
export function quarantineFromEnv(
  env: NodeJS.ProcessEnv,
  /** Where the metric lines go (CloudWatch reads them from stdout). */
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Pick<IntakeDeps, 'quarantine' | 'countQuarantined'> {
  const tableName = env[ENV.QUARANTINE_TABLE]?.trim();
  if (!tableName) return {};
  const ttlDays = envInteger(
    env,
    ENV.QUARANTINE_TTL_DAYS,
    { fallback: DEFAULT_QUARANTINE_TTL_DAYS, min: 1, max: 3650 },
    () => new ConfigurationError('invalid_configuration', `${ENV.QUARANTINE_TTL_DAYS} must be a whole number of days from 1 to 3650`),
  );
  let store: Promise<{ keep(input: QuarantineInput): Promise<KeepResult> }> | undefined;
  const open = async () => {
    const [{ documentClientFromEnv }, { createQuarantineKeeper }] = await Promise.all([
      import('../dynamodb/index.js'),
      import('../quarantine/keeper.entry.js'),
    ]);
    const client = documentClientFromEnv(env);
    return createQuarantineKeeper({ client, tableName, clock: Date.now, ttlDays });
  };
  const service = env.POWERTOOLS_SERVICE_NAME ?? 'loyalty-points-bridge';
  const namespace = env.POWERTOOLS_METRICS_NAMESPACE;
  return {
    quarantine: {
      async keep(input) {
        store ??= open();
        try {
          return await (await store).keep(input);
        } catch (e) {
          store = undefined;
          throw e;
        }
      },
    },
    countQuarantined: (_source, entry) => {
      const count = (name: typeof METRIC.quarantinedDeliveries | typeof METRIC.quarantinedBodiesNotKept) =>
        write(emfCountLine({ ...(namespace ? { namespace } : {}), service, name, nowMs: Date.now() }));
      count(METRIC.quarantinedDeliveries);
      if (!entry.bodyKept) count(METRIC.quarantinedBodiesNotKept);
    },
  };
}
