import { z } from 'zod';
import { ProcessingSettings } from '../../shared/config/index.js';

/**
 * What `GET /__local/info` answers: where a running stack's parts listen, so the demo and the CLI
 * follow the stack instead of guessing its ports from their own environment. Identifiers only: the
 * webhook secrets and the Open API secret never leave the process (callers read them from the same
 * environment / configuration file as `npm start`).
 */
export const LocalStackInfoSchema = z.object({
  /** `configPath`: the emulator configuration file the stack runs (the CLI reads the same file for the login). */
  emulator: z.object({ url: z.url(), clientId: z.string().min(1), configPath: z.string().min(1).optional() }),
  dynamodb: z.object({ url: z.url(), tableName: z.string().min(1), quarantineTable: z.string().min(1).optional() }),
  /** The Shopify GraphQL Admin API stand-in (absent from stacks started before it existed). */
  shopifyAdmin: z.object({ url: z.url() }).optional(),
  /** The Square Orders API stand-in, and the basis the stack's Square source earns on. */
  squareOrders: z.object({ url: z.url(), basis: z.string() }).optional(),
  /** The Smaregi Platform API stand-in, the contract of the stack's Smaregi source and its `tillPoints`. */
  smaregi: z.object({ url: z.url(), contractId: z.string().min(1), tillPoints: z.enum(['ignore', 'membership']).optional() }).optional(),
  /** The settings the stack's worker processes with (an operator command that processes uses the same). */
  processing: ProcessingSettings.optional(),
  /**
   * The sources configuration the stack's handlers read (SOURCES_CONFIG as derived: settings, never
   * secrets): operator commands take a source's external key, linking and topics from it.
   */
  sourcesConfig: z.string().optional(),
});

export type LocalStackInfo = z.infer<typeof LocalStackInfoSchema>;

export const LOCAL_INFO_PATH = '/__local/info';

/** POST /__local/enqueue: queues messages on the stack's in-process queue as the intake does (local/enqueue-route.ts). */
export const LOCAL_ENQUEUE_PATH = '/__local/enqueue';

/** dynalite ignores credentials but the SDK insists on some: these are never real. */
export const LOCAL_AWS = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
} as const;

/** A dead letter as the admin route lists it: the event parsed, times readable. */
export interface ListedDeadLetter {
  messageId: string;
  groupId: string;
  receiveCount: number;
  sentAt: string;
  deadLetteredAt: string;
  lastError: string | null;
  event: unknown;
}

/** What GET /__local/queue answers: the counts of the stack's in-process queue (local/queue's `stats()`). */
export interface LocalQueueStats {
  /** Messages ready to be received now. */
  visible: number;
  /** Messages in a batch the consumer is handling now. */
  processing: number;
  /** Received, not deleted, waiting for their visibility timeout (failed, to be retried). */
  waitingRetry: number;
  deadLettered: number;
  /** Messages sent, one at a time or in batches. */
  sent: number;
  /** SendMessageBatch calls (up to 10 messages each). */
  batchSends: number;
  deduplicated: number;
  received: number;
  deleted: number;
  /** Groups whose head could be received now (visible counts blocked followers too). */
  receivableGroups: number;
  /** ChangeMessageVisibility calls applied (waiting messages deferred). */
  visibilityChanges: number;
  runningBatches: number;
  /** Whether handing out batches is paused (the mapping disabled while the upstream is down). */
  paused: boolean;
}
