import type { LocalQueueOptions } from '../local/queue/index.js';
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { depsFromEnv, makeHandler, type ProcessEventsDeps } from '../functions/process-events.js';
import { LOCAL_AWS } from '../kit/local-stack/info.js';
import type { LocalQueue } from '../local/queue/index.js';
import { startLocalStack } from '../local/stack.js';
import { createDocumentClient, createLedger, type Ledger } from '../shared/ledger/index.js';
import { createOpenApiClient, type CredentialsProvider, type OpenApiCredentials } from '../shared/openapi/index.js';
import type { CheckpointStep, DueEarns } from '../shared/points/index.js';
import type { EventQueue, QueueMessage } from '../shared/queue/index.js';
import { localTiming } from '../kit/local-stack/timing.js';
import type { Timing } from '../shared/config/index.js';
import type { RedemptionDeps } from '../shared/redemption/index.js';
import { createSimClock, type SimClock } from './sim-clock.js';
import type { SenderSecrets } from './webhooks.js';
import { CHAOS_SQUARE_NOTIFICATION_URL } from './square.js';
import { CHAOS_CAMPAIGN } from './model.js';
import { LATER_SOURCE } from './provisional.js';
import { withSourceDefaults } from '../stand-ins/sources-config.js';

/**
 * The system under fire: the local stack (receiver behind its API Gateway stand-in, the in-process
 * FIFO queue with visibility timeouts, retries and a dead-letter list, the worker, the emulator,
 * dynalite), with what a chaos run needs: the checkpoint hook wired to the fault injector, short
 * timeouts, and a worker clock the run can move forward to expire leases.
 *
 * Timing: `npm start`'s own defaults (the one derivation, shared/config/timing.ts: lease, visibility
 * timeout, receives, refund wait, backoff, horizon), on a simulated clock (sim-clock.ts) that the run
 * jumps forward only while no batch is running. So a lease can only run out on an attempt that is dead
 * (crashed, or gave up after an unknown outcome), never under one still calling the Open API: in AWS
 * the Lambda timeout, shorter than the lease, guarantees the same.
 */

export interface ChaosStackOptions {
  emulatorConfig: unknown;
  client: { clientId: string; clientSecret: string };
  secrets: SenderSecrets;
  /** The worker client's connect/headers/body timeout. */
  clientTimeoutMs: number;
  /** The scenario's campaign (model.ts): the stack runs it as CAMPAIGNS_CONFIG. */
  campaign?: { minAmount: number } | undefined;
  checkpoint: (step: CheckpointStep) => void | Promise<void>;
  /** The worker set a waiting event aside (a copy of it sent to the queue): the report says what for. */
  onSetAside?: (message: QueueMessage) => void;
  /** Told about every message intake queues (the run may deliver some a second time, directly). */
  onQueued?: (message: QueueMessage) => void;
  /** Told about every message the queue deletes (processed), on the simulated clock. */
  onDeleted?: (message: { groupId: string; body: string; sentAt: number; deletedAt: number }) => void;
  /** Told about each message's first receive, with how long a deferring message of its group held it back. */
  onFirstReceived?: LocalQueueOptions['onFirstReceived'];
}

export interface ChaosStack {
  intakeUrl: string;
  emulatorUrl: string;
  /** The Shopify Admin API stand-in (lost-deliveries.ts puts undelivered orders there). */
  shopifyAdminUrl?: string;
  /** The Smaregi stand-in and the source's contract, header and secret (smaregi.ts). */
  smaregi?: { url: string; contractId: string; header: string; secret: string };
  queue: LocalQueue;
  ledger: Ledger;
  /** One tick of the provisional points ticker (npm start's, every minute): the run's last one follows the drain. */
  earnDue: () => Promise<DueEarns>;
  /** The ledger table, for whole-table reads (the audit's scan). */
  ledgerTable: { documentClient: DynamoDBDocumentClient; tableName: string };
  /** The simulated clock of the queue, the worker and the ledger. */
  clock: SimClock;
  /** The handlers' environment (SOURCES_CONFIG, SMAREGI access…): what the stage's scheduled functions read. */
  handlerEnv: NodeJS.ProcessEnv;
  /** The App Proxy's redemption dependencies (the sweep `npm start` runs every minute: redemption-clicks.ts). */
  redemption?: RedemptionDeps;
  /** The timing settings in force: `npm start`'s defaults. */
  timing: Timing;
  /** Nothing runs and nothing is receivable now (the clock may jump). */
  isIdle(): boolean;
  /**
   * If idle, jumps the clock to the next moment a waiting message comes back or `due` falls (a
   * disturbance's own next step), never past `limit`. Returns whether it did.
   */
  jumpToNextDue(limit?: number, due?: number): boolean;
  /**
   * Moves the clock past every lease, if no batch is running right now (checked and done in
   * one synchronous step, so no attempt can start in between), or only to the next message due before
   * that (the leases then run out on a later move). Returns whether it moved the clock.
   */
  expireLeases(): boolean;
  /**
   * Delivers a queued message once more, at once, to a second worker container (as SQS may deliver a
   * message twice): it races the queue's own delivery. Its failures are the queue copy's to retry.
   */
  deliverDirectly(message: QueueMessage): Promise<void>;
  close(): Promise<void>;
}

/** `npm start`'s timing (no variable set): what the chaos run proves. */
export const CHAOS_TIMING: Timing = localTiming({});

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const quietMetrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };

/** The ledger, reached once the stack has started (its port is picked at start). */
function lateLedger(ledger: () => Ledger | undefined): Ledger {
  return new Proxy({} as Ledger, {
    get(_target, property) {
      if (property === 'then') return undefined; // not a promise, whoever asks
      const ready = ledger();
      if (!ready) throw new Error('chaos: the ledger is not ready yet');
      return ready[property as keyof Ledger];
    },
  });
}

/** Sends to the run's queue once it is up, then tells the run what was sent. */
function toldQueue(queue: () => LocalQueue | undefined, tell: ((message: QueueMessage) => void) | undefined): EventQueue {
  return {
    send: async (message) => {
      const ready = queue();
      if (!ready) throw new Error('chaos: the queue is not ready yet');
      await ready.send(message);
      tell?.(message);
    },
  };
}

/** The handlers' environment for a run: quiet logs and metrics, shop enrolment on, the scenario's campaign if any. */
function chaosEnv(options: ChaosStackOptions): Record<string, string> {
  return {
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_DISABLED: 'true',
    // Shop customers unknown to the service are enrolled by customers/create (links.ts).
    SHOPIFY_ENROLMENT: 'register',
    // A second Shopify source earning at fulfilment (provisional.ts), signed with the same secret.
    SOURCES_CONFIG:
      withSourceDefaults(undefined, LATER_SOURCE, { kind: 'shopify', earnAfter: 'fulfilled', partialFulfilments: true }) ?? '',
    SHOPIFY_LATER_WEBHOOK_SECRETS: options.secrets.shopify,
    // A share of the Shopify orders earns a ポイント2倍 bonus (model.ts, CHAOS_CAMPAIGN), when the scenario has it.
    ...(options.campaign
      ? { CAMPAIGNS_CONFIG: JSON.stringify([{ ...CHAOS_CAMPAIGN, minAmount: String(options.campaign.minAmount) }]) }
      : {}),
  };
}

export async function startChaosStack(options: ChaosStackOptions): Promise<ChaosStack> {
  const clock = createSimClock();
  const workerClock = clock.now;

  // Ports are picked at start: the worker's client and ledger learn their addresses on first use.
  let credentials: OpenApiCredentials | undefined;
  let ledger: Ledger | undefined;
  const provider: CredentialsProvider = {
    get: async () => {
      if (!credentials) throw new Error('chaos: the Open API credentials are not set yet');
      return credentials;
    },
  };
  const lazyLedger = lateLedger(() => ledger);
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
  let queue: LocalQueue | undefined;
  // The workers' own sends (waiting events set aside) go to the queue, and are told to the run.
  const setAsideQueue = toldQueue(() => queue, options.onSetAside);
  const processOverrides: Partial<ProcessEventsDeps> = {
    openapi,
    queue: setAsideQueue,
    ledger: lazyLedger,
    clock: workerClock,
    checkpoint: options.checkpoint,
    logger: quiet,
    metrics: quietMetrics,
  };
  const forwardingQueue = toldQueue(() => queue, options.onQueued);
  const stack = await startLocalStack({
    emulatorConfig: options.emulatorConfig,
    webhookSecrets: { shopify: [options.secrets.shopify], pos: [options.secrets.pos], square: [options.secrets.square] },
    squareNotificationUrl: CHAOS_SQUARE_NOTIFICATION_URL,
    // Points spent at Smaregi tills come off the membership balance (smaregi.ts: sales paid partly in points).
    smaregi: { tillPoints: 'membership' },
    tableName: 'chaos-ledger',
    env: chaosEnv(options),
    // Visibility timeout and receives: npm start's derived defaults; only the clock is simulated.
    queue: {
      clock,
      concurrency: 4,
      batchSize: 10,
      ...(options.onDeleted ? { onDeleted: options.onDeleted } : {}),
      ...(options.onFirstReceived ? { onFirstReceived: options.onFirstReceived } : {}),
    },
    processOverrides,
    receiveOverrides: { queue: forwardingQueue },
  });
  queue = stack.queue;
  const documentClient = createDocumentClient({ endpoint: stack.urls.dynamodb, ...LOCAL_AWS });
  ledger = createLedger({
    client: documentClient,
    tableName: stack.tableName,
    clock: workerClock,
    leaseSeconds: CHAOS_TIMING.leaseSeconds,
  });
  credentials = { baseUrl: stack.openApi.baseUrl, clientId: stack.openApi.clientId, clientSecret: stack.openApi.clientSecret };
  // The second container: the same handler and dependencies (ledger, clock, hook), its own client.
  const secondClient = workerClient('loyalty-points-bridge/chaos-2');
  // Its messages are not the queue's: deferring them is refused (as SQS refuses a stale receipt), and
  // the queue's own copy is deferred or retried as usual.
  const secondContainer = makeHandler(
    depsFromEnv(stack.handlerEnv, { ...processOverrides, openapi: secondClient, visibility: stack.queue }),
  );
  let directInFlight = 0;
  const isIdle = () => {
    const s = stack.queue.stats();
    return s.runningBatches === 0 && (s.paused || s.receivableGroups === 0) && directInFlight === 0;
  };
  return {
    intakeUrl: stack.urls.intake,
    emulatorUrl: stack.urls.emulator,
    shopifyAdminUrl: stack.urls.shopifyAdmin,
    smaregi: {
      url: stack.standIns.smaregi.standIn.url,
      contractId: stack.standIns.smaregi.contractId,
      header: stack.standIns.smaregi.webhookHeader,
      secret: stack.standIns.smaregi.webhookSecret,
    },
    queue: stack.queue,
    ledger: stack.ledger,
    earnDue: stack.earnDue,
    ledgerTable: { documentClient, tableName: stack.tableName },
    clock,
    handlerEnv: stack.handlerEnv,
    ...(stack.redemption ? { redemption: stack.redemption } : {}),
    timing: CHAOS_TIMING,
    isIdle,
    ...clockMoves(stack, clock, isIdle, () => directInFlight),
    async deliverDirectly(message) {
      directInFlight += 1;
      try {
        await secondContainer(sqsEventOf(message, clock.now()));
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

/** Moves of the simulated clock when nothing runs: to the next thing due, or past every lease. */
function clockMoves(
  stack: Awaited<ReturnType<typeof startLocalStack>>,
  clock: ReturnType<typeof createSimClock>,
  isIdle: () => boolean,
  directInFlight: () => number,
): Pick<ChaosStack, 'jumpToNextDue' | 'expireLeases'> {
  return {
    jumpToNextDue(limit, due) {
      if (!isIdle()) return false;
      // While pulling is paused (the upstream down), the next thing due is the recovery probe.
      const next = stack.queue.stats().paused ? stack.recovery.nextDueAt() : stack.queue.nextVisibleAt();
      const target = Math.min(next ?? Number.POSITIVE_INFINITY, due ?? Number.POSITIVE_INFINITY, limit ?? Number.POSITIVE_INFINITY);
      if (!Number.isFinite(target) || target <= clock.now()) return false;
      return clock.jump(target - clock.now()) > 0;
    },
    expireLeases() {
      if (stack.queue.stats().runningBatches > 0 || directInFlight() > 0) return false;
      // Past every lease, but not past a message due sooner: jumping over it would make it wait for
      // nothing (an event due in 2 s processed 46 s later). The leases then run out on a later jump.
      const now = clock.now();
      const leasesEnd = now + (CHAOS_TIMING.leaseSeconds + 1) * 1000;
      const due = stack.queue.nextVisibleAt();
      const target = due !== undefined && due < leasesEnd ? due : leasesEnd;
      if (target <= now) return false;
      return clock.jump(target - now) > 0;
    },
  };
}

function sqsEventOf(message: QueueMessage, nowMs: number): SQSEvent {
  const now = String(nowMs);
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
