import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Ledger } from '../shared/ledger/index.js';
import type { OpenApiClient } from '../shared/openapi/index.js';
import type { QuarantineStore } from '../shared/quarantine/index.js';
import { listDeadLetter } from './admin.js';
import { deadLetterReason } from '../ops/dead-letter-reason.js';
import type { LocalQueue } from './queue/index.js';
import { type ConsoleSource, message } from '../console/index.js';
import { ledgerPlannedPause, pullingStatus } from '../shared/consumer/index.js';

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
    label: message('where.local', { url: parts.intakeUrl }),
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
