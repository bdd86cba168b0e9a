// Single files of shared/config, not its index: receive-webhook loads this module, and the index would bundle
// the worker's settings (zod schemas built at load) into that function.
import { ENV } from '../config/environment.js';
import { emfCountLine } from '../metrics/emf.js';
import { METRIC } from '../metrics/names.js';
import { DEFAULT_QUARANTINE_TTL_DAYS, type KeepResult, type QuarantineInput } from '../quarantine/index.js';
import type { IntakeDeps } from './intake.js';
import { envInteger } from '../config/env-values.js';

/**
 * The quarantine intake writes to, from the environment: QUARANTINE_TABLE (unset: none, and
 * unreadable deliveries are refused as before), QUARANTINE_TTL_DAYS, DYNAMODB_ENDPOINT (local only).
 * The DynamoDB client is built on the first delivery that needs it, not at cold start.
 */
export function quarantineFromEnvironment(
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
    () => new Error(`${ENV.QUARANTINE_TTL_DAYS} must be a whole number of days from 1 to 3650`),
  );
  const endpoint = env[ENV.DYNAMODB_ENDPOINT];
  let store: Promise<{ keep(input: QuarantineInput): Promise<KeepResult> }> | undefined;
  const open = async () => {
    const [{ createDocumentClient }, { createQuarantineStore }] = await Promise.all([
      import('../ledger/client.js'),
      import('../quarantine/store.js'),
    ]);
    // Locally (dynalite) the endpoint is given and the credentials are dummies dynalite ignores.
    const local = { endpoint, region: env.AWS_REGION ?? 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
    const client = createDocumentClient(endpoint ? local : {});
    return createQuarantineStore({ client, tableName, clock: Date.now, ttlDays });
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
