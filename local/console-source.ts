import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Ledger } from '../shared/ledger/index.js';
import type { OpenApiClient } from '../shared/openapi/index.js';
import type { QuarantineStore } from '../shared/quarantine/index.js';
import { listDeadLetter } from './admin.js';
import { deadLetterReason } from '../ops/dead-letter-reason.js';
import type { LocalQueue } from './queue/index.js';
import type { ConsoleSource } from '../console/source.js';
import { ledgerPlannedPause, pullingStatus } from '../shared/consumer/index.js';
import { ConsoleStartingError } from '../console/errors.js';

export interface LocalConsoleParts {
  intakeUrl: string;
  queue: LocalQueue;
  ledger: Ledger;
  client: Pick<DynamoDBDocumentClient, 'send'>;
  tableName: string;
  openapi: Pick<OpenApiClient, 'listPoints'>;
  quarantine: QuarantineStore;
}

/** The console's view of `npm start`: its dynalite tables, its emulator, its in-process queue. */
export function localConsoleSource(parts: LocalConsoleParts): ConsoleSource {
  return {
    label: `local stack ${parts.intakeUrl}`,
    ledger: { client: parts.client, tableName: parts.tableName, records: parts.ledger },
    openapi: parts.openapi,
    quarantine: {
      store: parts.quarantine,
      webhookUrl: (source) => `${parts.intakeUrl}/webhooks/${encodeURIComponent(source)}`,
      close: async () => undefined,
    },
    async deadLetters() {
      const out = [];
      for (const letter of parts.queue.deadLetters().map(listDeadLetter)) {
        // The same reason `npm run redrive` prints: the ledger's last error, else the queue's.
        out.push({ ...letter, lastError: await deadLetterReason(parts.ledger, letter.event, letter.lastError) });
      }
      return out;
    },
    // What POST /__local/redrive (npm run redrive) does.
    redrive: async () => parts.queue.redrive(),
    pulling: () => pullingStatus({ pull: parts.queue, records: ledgerPlannedPause({ client: parts.client, tableName: parts.tableName }) }),
    backlog: async () => {
      const s = parts.queue.stats();
      return { ready: s.visible, processing: s.processing, 'waiting retry': s.waitingRetry, 'dead-lettered': s.deadLettered };
    },
  };
}

/**
 * A source for routes built before the stack's parts exist: each read waits for none, it answers
 * 503 "starting" (ConsoleStartingError) until `get` gives the real source.
 */
export function deferredSource(get: () => ConsoleSource | undefined): ConsoleSource {
  const source = () => {
    const s = get();
    if (s === undefined) throw new ConsoleStartingError();
    return s;
  };
  return {
    get label() {
      return get()?.label ?? 'local stack (starting)';
    },
    get ledger() {
      return source().ledger;
    },
    get openapi() {
      return source().openapi;
    },
    get quarantine() {
      return source().quarantine;
    },
    deadLetters: () => source().deadLetters(),
    redrive: () => source().redrive(),
    backlog: () => source().backlog(),
    pulling: () => source().pulling(),
  };
}
