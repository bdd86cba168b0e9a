import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { depsFromEnvironment, makeHandler, type ProcessEventsDeps } from '../../functions/process-events.js';
import { LOCAL_AWS } from '../../local/dynamodb/index.js';
import type { LocalQueue } from '../../local/queue/index.js';
import { startLocalStack } from '../../local/stack.js';
import { createDocumentClient, createLedger, type Ledger } from '../../shared/ledger/index.js';
import { createOpenApiClient, type CredentialsProvider, type OpenApiCredentials } from '../../shared/openapi/index.js';
import type { CheckpointStep } from '../../shared/points/index.js';
import type { EventQueue, QueueMessage } from '../../shared/queue/index.js';
import type { SenderSecrets } from './webhooks.js';

/**
 * The system under fire: the local stack (receiver behind its API Gateway stand-in, the in-process
 * FIFO queue with visibility timeouts, retries and a dead-letter list, the worker, the emulator,
 * dynalite), with what a chaos run needs: the checkpoint hook wired to the fault injector, short
 * timeouts, and a worker clock the run can move forward to expire leases.
 *
 * Lease expiry: the worker's lease is long (60 s on its clock), and the run moves the worker's clock
 * past it only at a moment when no batch is running. So a lease can only run out on an attempt that
 * is dead (crashed, or gave up after an unknown outcome), never under one still calling the Open API:
 * in AWS the Lambda timeout, shorter than the lease, guarantees the same.
 */

export interface ChaosStackOptions {
  emulatorConfig: unknown;
  client: { clientId: string; clientSecret: string };
  secrets: SenderSecrets;
  /** The worker client's connect/headers/body timeout. */
  clientTimeoutMs: number;
  checkpoint: (step: CheckpointStep) => void | Promise<void>;
  /** Told about every message intake queues (the run may deliver some a second time, directly). */
  onQueued?: (message: QueueMessage) => void;
}

export interface ChaosStack {
  intakeUrl: string;
  emulatorUrl: string;
  /** The Shopify Admin API stand-in (lost-deliveries.ts puts undelivered orders there). */
  shopifyAdminUrl?: string;
  queue: LocalQueue;
  ledger: Ledger;
  /**
   * Moves the worker's clock past every lease, if no batch is running right now (checked and done in
   * one synchronous step, so no attempt can start in between). Returns whether it did.
   */
  expireLeases(): boolean;
  /**
   * Delivers a queued message once more, at once, to a second worker container (as SQS may deliver a
   * message twice): it races the queue's own delivery. Its failures are the queue copy's to retry.
   */
  deliverDirectly(message: QueueMessage): Promise<void>;
  close(): Promise<void>;
}

export const CHAOS_LEASE_SECONDS = 60;
/** A refund that overtook its purchase is retried this long (worker clock), then parked. */
export const CHAOS_REFUND_WAIT_SECONDS = 2;

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const quietMetrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };

export async function startChaosStack(options: ChaosStackOptions): Promise<ChaosStack> {
  let offsetMs = 0;
  const workerClock = () => Date.now() + offsetMs;

  // Ports are picked at start: the worker's client and ledger learn their addresses on first use.
  let credentials: OpenApiCredentials | undefined;
  let ledger: Ledger | undefined;
  const provider: CredentialsProvider = {
    get: async () => {
      if (!credentials) throw new Error('chaos: the Open API credentials are not set yet');
      return credentials;
    },
  };
  const lazyLedger = new Proxy({} as Ledger, {
    get(_target, property) {
      if (property === 'then') return undefined; // not a promise, whoever asks
      if (!ledger) throw new Error('chaos: the ledger is not ready yet');
      return ledger[property as keyof Ledger];
    },
  });
  // Short timeouts and one read retry: a fault costs about a second, not the production 10 s.
  const workerClient = (userAgent: string) =>
    createOpenApiClient({
      credentials: provider,
      userAgent,
      timeouts: { connectMs: options.clientTimeoutMs, headersMs: options.clientTimeoutMs, bodyMs: options.clientTimeoutMs },
      readRetries: 1,
      retryBaseMs: 20,
      now: workerClock,
    });
  const openapi = workerClient('loyalty-points-bridge/chaos');
  const processOverrides: Partial<ProcessEventsDeps> = {
    openapi,
    ledger: lazyLedger,
    clock: workerClock,
    checkpoint: options.checkpoint,
    logger: quiet,
    metrics: quietMetrics,
  };
  let queue: LocalQueue | undefined;
  const forwardingQueue: EventQueue = {
    send: async (message) => {
      if (!queue) throw new Error('chaos: the queue is not ready yet');
      await queue.send(message);
      options.onQueued?.(message);
    },
  };
  const stack = await startLocalStack({
    emulatorConfig: options.emulatorConfig,
    webhookSecrets: { shopify: [options.secrets.shopify], pos: [options.secrets.pos] },
    tableName: 'chaos-ledger',
    env: {
      LEASE_SECONDS: String(CHAOS_LEASE_SECONDS),
      REFUND_WAIT_SECONDS: String(CHAOS_REFUND_WAIT_SECONDS),
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
    // Visibility 2 s: failed messages come back quickly; an attempt slower than that is delivered a
    // second time while it runs (a concurrent duplicate, as SQS does when visibility runs out).
    queue: { visibilityTimeoutMs: 2000, maxReceiveCount: 10, concurrency: 4, batchSize: 10 },
    processOverrides,
    receiveOverrides: { queue: forwardingQueue },
  });
  queue = stack.queue;
  const documentClient = createDocumentClient({ endpoint: stack.urls.dynamodb, ...LOCAL_AWS });
  ledger = createLedger({ client: documentClient, tableName: stack.tableName, clock: workerClock, leaseSeconds: CHAOS_LEASE_SECONDS });
  credentials = { baseUrl: stack.openApi.baseUrl, clientId: stack.openApi.clientId, clientSecret: stack.openApi.clientSecret };
  // The second container: the same handler and dependencies (ledger, clock, hook), its own client.
  const secondClient = workerClient('loyalty-points-bridge/chaos-2');
  const secondContainer = makeHandler(depsFromEnvironment(stack.handlerEnv, { ...processOverrides, openapi: secondClient }));
  let directInFlight = 0;
  return {
    intakeUrl: stack.urls.intake,
    emulatorUrl: stack.urls.emulator,
    shopifyAdminUrl: stack.urls.shopifyAdmin,
    queue: stack.queue,
    ledger: stack.ledger,
    expireLeases() {
      if (stack.queue.stats().runningBatches > 0 || directInFlight > 0) return false;
      offsetMs += (CHAOS_LEASE_SECONDS + 1) * 1000;
      return true;
    },
    async deliverDirectly(message) {
      directInFlight += 1;
      try {
        await secondContainer(sqsEventOf(message));
      } catch {
        // An injected crash or a transient failure: the queue's copy is still there to be retried.
      } finally {
        directInFlight -= 1;
      }
    },
    close: async () => {
      await stack.close();
      await openapi.close();
      await secondClient.close();
      documentClient.destroy();
    },
  };
}

function sqsEventOf(message: QueueMessage): SQSEvent {
  const now = String(Date.now());
  return {
    Records: [
      {
        messageId: randomUUID(),
        receiptHandle: randomUUID(),
        body: message.body,
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: now,
          SenderId: 'AIDACHAOSDIRECT',
          ApproximateFirstReceiveTimestamp: now,
          SequenceNumber: '0',
          MessageGroupId: message.groupId,
          MessageDeduplicationId: message.deduplicationId,
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:chaos-direct.fifo',
        awsRegion: 'us-east-1',
      },
    ],
  };
}
