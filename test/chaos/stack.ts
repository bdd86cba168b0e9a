import type { ProcessEventsDeps } from '../../functions/process-events.js';
import type { Ledger } from '../../shared/ledger/index.js';
import { createOpenApiClient, type CredentialsProvider, type OpenApiCredentials } from '../../shared/openapi/index.js';
import type { CheckpointStep } from '../../shared/points/index.js';
import { startLocalStack } from '../../local/stack.js';
import type { LocalQueue } from '../../local/queue/index.js';
import type { SenderSecrets } from './webhooks.js';

/**
 * The system under fire: the local stack (receiver behind its API Gateway stand-in, the in-process
 * FIFO queue with visibility timeouts, retries and a dead-letter list, the worker, the emulator,
 * dynalite), with the settings a chaos run needs: short leases and timeouts so faults play out in
 * seconds, and the checkpoint hook wired to the fault injector.
 */

export interface ChaosStackOptions {
  emulatorConfig: unknown;
  client: { clientId: string; clientSecret: string };
  secrets: SenderSecrets;
  /** The worker client's connect/headers/body timeout. */
  clientTimeoutMs: number;
  checkpoint: (step: CheckpointStep) => void | Promise<void>;
}

export interface ChaosStack {
  intakeUrl: string;
  emulatorUrl: string;
  queue: LocalQueue;
  ledger: Ledger;
  /** The worker's lease: how long a crashed attempt blocks its order. */
  leaseMs: number;
  close(): Promise<void>;
}

/** Lease of the worker in the run (the settings' minimum): it must outlive one attempt (see below). */
export const CHAOS_LEASE_SECONDS = 5;

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const quietMetrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };

export async function startChaosStack(options: ChaosStackOptions): Promise<ChaosStack> {
  // The emulator's URL is known only once the stack runs; the worker's client asks for it on its first call.
  let credentials: OpenApiCredentials | undefined;
  const provider: CredentialsProvider = {
    get: async () => {
      if (!credentials) throw new Error('chaos: the Open API credentials are not set yet');
      return credentials;
    },
  };
  // Short timeouts and one read retry bound an attempt to ~3.5 s (token, lookup, one history page and
  // the calculation, each at most 2 x timeout), below the 5 s lease: a lease may only run out on an
  // attempt that is dead, never on one still calling.
  const openapi = createOpenApiClient({
    credentials: provider,
    userAgent: 'loyalty-points-bridge/chaos',
    timeouts: { connectMs: options.clientTimeoutMs, headersMs: options.clientTimeoutMs, bodyMs: options.clientTimeoutMs },
    readRetries: 1,
    retryBaseMs: 20,
  });
  const processOverrides: Partial<ProcessEventsDeps> = {
    openapi,
    checkpoint: options.checkpoint,
    logger: quiet,
    metrics: quietMetrics,
  };
  const stack = await startLocalStack({
    emulatorConfig: options.emulatorConfig,
    webhookSecrets: { shopify: [options.secrets.shopify], pos: [options.secrets.pos] },
    tableName: 'chaos-ledger',
    env: {
      LEASE_SECONDS: String(CHAOS_LEASE_SECONDS),
      // A refund that overtook its purchase waits 1 s, then parks until the purchase picks it up.
      REFUND_WAIT_SECONDS: '1',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
    // Visibility 2 s: a retry after a crash finds the 5 s lease still held twice at most, then takes it over.
    queue: { visibilityTimeoutMs: 2000, maxReceiveCount: 8, concurrency: 4, batchSize: 10 },
    processOverrides,
  });
  credentials = { baseUrl: stack.openApi.baseUrl, clientId: stack.openApi.clientId, clientSecret: stack.openApi.clientSecret };
  return {
    intakeUrl: stack.urls.intake,
    emulatorUrl: stack.urls.emulator,
    queue: stack.queue,
    ledger: stack.ledger,
    leaseMs: CHAOS_LEASE_SECONDS * 1000,
    close: async () => {
      await stack.close();
      await openapi.close();
    },
  };
}
