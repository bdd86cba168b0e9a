import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Ledger } from '../shared/ledger/index.js';
import type { OpenApiClient } from '../shared/openapi/index.js';
import type { QuarantineTarget } from '../ops/quarantine.js';
import type { PullingStatus } from '../shared/consumer/index.js';
import type { ConsoleMessage } from './messages.js';

/** A dead-lettered message as the console lists it (the local list, or the stage's DLQ). */
export interface ConsoleDeadLetter {
  messageId: string;
  receiveCount: number;
  sentAt: string | null;
  lastError: string | null;
  /** The event's source, order and refund ids when the body is a canonical event. */
  event: unknown;
}

/** What the queue holds now (local: the in-process queue; a stage: SQS's approximate counts). */
export type Backlog = Record<string, number>;

/**
 * Everything the console reads and the two actions it takes, for the local stack or a deployed
 * stage: the same stores and the same operator functions the CLIs use.
 */
export interface ConsoleSource {
  /** Where it reads (`where.local` with the stack's URL, `where.stage` with the stage's name), worded by the page. */
  label: ConsoleMessage;
  /** The ledger table (scanned for the order list) and the ledger module (one order's records). */
  ledger: {
    client: Pick<DynamoDBDocumentClient, 'send'>;
    tableName: string;
    records: Pick<Ledger, 'getOrder' | 'listRefunds' | 'getBonus'>;
  };
  openapi: Pick<OpenApiClient, 'listPoints'>;
  quarantine: QuarantineTarget;
  deadLetters(): Promise<ConsoleDeadLetter[]>;
  /** Moves every dead letter back to the queue; returns how many (the `npm run redrive` code). */
  redrive(): Promise<number>;
  backlog(): Promise<Backlog>;
  /** Whether the worker pulls, and if not since when (a planned pause, `npm run pause`) or why. */
  pulling(): Promise<PullingStatus>;
}
