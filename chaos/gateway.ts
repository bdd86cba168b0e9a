import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ScanCommand } from '../shared/dynamodb/index.js';
import type { Disturbance } from './disturbance.js';
import type { SimClock } from './sim-clock.js';

/**
 * `--gateway SECONDS`: what stands in front of the membership service misbehaves for a stretch, from a
 * third of the deliveries on (the emulator's `status` fault on every /api/ext route): for the first half
 * a rate limit (429, an HTML body, `Retry-After: 2`), for the second a maintenance page (HTML 503).
 * Then the faults are cleared. The bridge must wait the first out and ride the second out as an outage:
 * nothing parked as upstream_rejected, lost, doubled or dead-lettered (shared/openapi/README.md,
 * "Answers the spec does not give"). Its own module so the runner takes it with one line.
 */
const FOR_EVER = 1_000_000_000;
const RATE_LIMIT = {
  status: 429,
  body: '<html><head><title>429 Too Many Requests</title></head><body>Too Many Requests</body></html>',
  headers: { 'content-type': 'text/html', 'retry-after': '2' },
};
const MAINTENANCE = {
  status: 503,
  body: '<!DOCTYPE html><html><head><title>メンテナンス中</title></head><body>ただいまメンテナンス中です</body></html>',
  headers: { 'content-type': 'text/html; charset=UTF-8', 'retry-after': '3600' },
};

type Phase = 'before' | 'rate_limited' | 'maintenance' | 'over';

export function createGatewayStretch(options: {
  seconds: number;
  emulatorUrl: string;
  clock: SimClock;
  /** The ledger table, to count what was parked as upstream_rejected at the end. */
  ledgerTable: { documentClient: Pick<DynamoDBDocumentClient, 'send'>; tableName: string };
  log: (line: string) => void;
}): Disturbance {
  let phase: Phase = 'before';
  let startedAt = 0;
  let switching = false;
  let parked: number | undefined;
  const half = () => startedAt + (options.seconds * 1000) / 2;
  const end = () => startedAt + options.seconds * 1000;

  const admin = async (method: 'POST' | 'DELETE', body?: unknown) => {
    const res = await fetch(`${options.emulatorUrl}/__emulator/faults`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    await res.arrayBuffer();
    if (res.status >= 300) throw new Error(`chaos gateway: ${method} /__emulator/faults answered ${res.status}`);
  };
  const answerEverything = (answer: typeof RATE_LIMIT) =>
    admin('POST', { path: '^/api/ext/', fault: 'status', times: FOR_EVER, ...answer });

  return {
    name: 'gateway',
    async beforeDelivery(position, total) {
      if (phase !== 'before' || position !== Math.floor(total / 3)) return;
      startedAt = options.clock.now();
      await answerEverything(RATE_LIMIT);
      phase = 'rate_limited';
      options.log(`chaos: gateway begins: 429 (Retry-After 2) for ${options.seconds / 2} s, then an HTML 503 page for as long (simulated)`);
    },
    async tick() {
      if (switching || phase === 'before' || phase === 'over') return;
      const now = options.clock.now();
      switching = true;
      try {
        if (phase === 'rate_limited' && now >= half()) {
          await admin('DELETE');
          await answerEverything(MAINTENANCE);
          phase = 'maintenance';
          options.log('chaos: gateway: the maintenance page replaces the rate limit');
        } else if (phase === 'maintenance' && now >= end()) {
          await admin('DELETE');
          phase = 'over';
          options.log('chaos: gateway over: the service answers itself again');
        }
      } finally {
        switching = false;
      }
    },
    jumpLimit: () => (phase === 'rate_limited' ? half() : phase === 'maintenance' ? end() : undefined),
    holdsClock: () => phase === 'rate_limited' || phase === 'maintenance',
    async afterDrain() {
      if (phase === 'before') return;
      parked = 0;
      let start: Record<string, unknown> | undefined;
      do {
        const page = await options.ledgerTable.documentClient.send(
          new ScanCommand({
            TableName: options.ledgerTable.tableName,
            FilterExpression: '#o = :o',
            ExpressionAttributeNames: { '#o': 'outcome' },
            ExpressionAttributeValues: { ':o': 'upstream_rejected' },
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        parked += page.Items?.length ?? 0;
        start = page.LastEvaluatedKey;
      } while (start);
    },
    reportLines: () =>
      phase === 'before'
        ? []
        : [
            `  gateway: ${options.seconds / 2} s of 429s then ${options.seconds / 2} s of HTML 503 pages on every route; parked as upstream_rejected: ${parked ?? 'n/a'}`,
          ],
  };
}
