import { writeFile } from 'node:fs/promises';
import type { ComparisonFigures, KindFigures, SideFigures } from './compare.js';
import { CLIENT_TIMEOUT_MS, FAULT_KINDS, LAMBDA_TIMEOUT_MS, OPENING_POINTS } from './plan.js';
import { comparisonSvg } from './plot.js';

/** The comparison's place in the bench output: the JSON figures, the results.md section, the SVG file. */

export const PLOT_FILE = 'powertools-comparison.svg';

/** The JSON of `comparison` (the per-purchase series stays in the plot). */
export function comparisonJson(figures: ComparisonFigures) {
  const side = ({ cumulative: _series, ...rest }: SideFigures) => rest;
  return { bridge: side(figures.bridge), powertools: side(figures.powertools) };
}

export async function writeComparisonPlot(figures: ComparisonFigures, path: string): Promise<void> {
  await writeFile(path, comparisonSvg(figures));
}

/** The rows of the bench's main table. */
export function comparisonRows(figures: ComparisonFigures) {
  const { bridge: b, powertools: p } = figures;
  const area = 'vs Powertools';
  const both = (f: (s: SideFigures) => number) => `${f(b)} / ${f(p)}`;
  return [
    {
      area,
      figure: `same ${b.purchases} purchases + ${b.refunds} refunds and faults: credits doubled, bridge / Powertools`,
      value: both((s) => s.doubledCredits),
      limit: 'bridge 0',
    },
    { area, figure: 'debits doubled, bridge / Powertools', value: both((s) => s.doubledDebits), limit: 'bridge 0' },
    { area, figure: 'credits + debits lost, bridge / Powertools', value: both((s) => s.lost), limit: 'bridge 0' },
    { area, figure: 'DynamoDB writes per purchase, bridge / Powertools', value: both((s) => s.dynamoWritesPerPurchase), limit: '-' },
    { area, figure: 'DynamoDB writes per refund, bridge / Powertools', value: both((s) => s.dynamoWritesPerRefund), limit: '-' },
    { area, figure: 'upstream calls per purchase, bridge / Powertools', value: both((s) => s.upstreamCallsPerPurchase), limit: '-' },
    { area, figure: 'upstream calls per refund, bridge / Powertools', value: both((s) => s.upstreamCallsPerRefund), limit: '-' },
    { area, figure: 'p50 of an acknowledged delivery, bridge / Powertools', value: `${both((s) => s.p50Ms)} ms`, limit: '-' },
  ];
}

/** The per-kind table: one row per event type and fault kind. */
function kindRows(b: SideFigures, p: SideFigures): string[] {
  return (['purchase', 'refund'] as const).flatMap((type) =>
    FAULT_KINDS.map((k) => {
      const kb = b.byKind[type][k];
      const kp = p.byKind[type][k];
      const n = Math.max(1, kb?.events ?? 0);
      const per = (x: number | undefined) => Math.round(((x ?? 0) / n) * 100) / 100;
      const cells = (s: KindFigures | undefined) =>
        `${s?.doubled ?? 0} / ${s?.lost ?? 0} | ${per(s?.dynamoWrites)} / ${per(s?.upstreamCalls)}`;
      return `| ${type} | ${k} | ${kb?.events ?? 0} | ${cells(kb)} | ${cells(kp)} |`;
    }),
  );
}

export function comparisonMarkdown(figures: ComparisonFigures): string[] {
  const { bridge: b, powertools: p } = figures;
  const row = (name: string, f: (s: SideFigures) => string | number) => `| ${name} | ${f(b)} | ${f(p)} |`;
  return [
    '## Side by side with Powertools idempotency',
    '',
    `The same ${b.purchases} purchases and ${b.refunds} refunds (one partial refund per order, seed ${figures.seed}) and the same`,
    "fault for each, through the bridge's worker and through a purchase and a refund handler written with",
    "`@aws-lambda-powertools/idempotency` (bench/powertools/handler.ts). Credits and debits counted in the emulator's point",
    'histories against the model (one member per order: its positive entries are the credits, its negative ones the',
    "refund's debits); DynamoDB writes counted by a proxy in front of dynalite, upstream calls by the emulator's",
    '`/__emulator/stats` (token requests included).',
    '',
    '| | bridge | Powertools idempotency |',
    '|---|---:|---:|',
    row('events (purchases + refunds)', (s) => `${s.events} (${s.purchases} + ${s.refunds})`),
    row('credits doubled', (s) => s.doubledCredits),
    row('credits lost', (s) => s.lostCredits),
    row('debits doubled', (s) => s.doubledDebits),
    row('debits lost', (s) => s.lostDebits),
    row('credits or debits of a wrong amount', (s) => s.wrongAmounts),
    row('deliveries (redeliveries included)', (s) => s.deliveries),
    row('dead-lettered', (s) => s.deadLettered),
    row('DynamoDB writes per purchase / per refund', (s) => `${s.dynamoWritesPerPurchase} / ${s.dynamoWritesPerRefund}`),
    row('upstream calls per purchase / per refund', (s) => `${s.upstreamCallsPerPurchase} / ${s.upstreamCallsPerRefund}`),
    row('p50 ms of an acknowledged delivery', (s) => s.p50Ms),
    row('DynamoDB requests by operation', (s) =>
      Object.entries(s.dynamoOperations)
        .map(([op, n]) => `${op} ${n}`)
        .join(', '),
    ),
    '',
    'Per event and fault kind: doubled / lost, and DynamoDB writes / upstream calls per event:',
    '',
    '| event | fault | events | bridge doubled / lost | bridge writes / calls | Powertools doubled / lost | Powertools writes / calls |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...kindRows(b, p),
    '',
    `![cumulative doubled and lost credits over the run, both implementations](${PLOT_FILE})`,
    '',
    '**How.** Each side gets a fresh emulator and dynalite; every member starts with',
    `${OPENING_POINTS} points of earlier purchases (one history entry, left out of the counts; a member holding only this`,
    "order's points would make the upstream refuse a second debit bigger than what is left, hiding a doubled debit behind",
    'an `insufficient_points` refusal). Events go one at a time, each purchase followed by its refund (a `concurrent` one',
    'as two copies at once), so a fault armed on the grant (the points calculation of a purchase, the negative point grant',
    `of a refund) hits the event it was armed for. A failed or dead attempt is delivered again (at most 8 deliveries). The`,
    `Open API client is the project's, on both sides, with ${CLIENT_TIMEOUT_MS} ms timeouts. Fault kinds: \`duplicate\` (delivered`,
    'again after it succeeded), `concurrent`, the emulator faults `error_500`, `reset_before`, `reset_after_commit`,',
    `\`delay\` (answer held ${CLIENT_TIMEOUT_MS * 2} ms, past the client's timeout), crashes at the same two boundaries on both sides`,
    '(before the grant, with the order held; after the grant, before anything is recorded: the attempt never gets past',
    'that line and runs no clean-up, as when a process dies) and `timeout` (the grant answers slowly and the function',
    'times out before the next line). A redelivery after a dead attempt comes once its claim has lapsed: for the bridge',
    "its ledger's clock moves past the lease; for Powertools the bench waits out the function's timeout (scaled to",
    `${LAMBDA_TIMEOUT_MS} ms, registered through the Lambda context), as SQS's visibility timeout, at least the function's`,
    'timeout, would. The p50 is of acknowledged deliveries, faults included; DynamoDB writes include conditional writes',
    'that failed (they use write capacity too). The model: a credit of floor(amount x rank rate), a debit of',
    'floor(credit x refunded / order amount) (design.md); one entry of that amount is right, more are doubled, none is lost.',
    '',
    '**What the Powertools side is.** What a careful team writes: `makeIdempotent` + `DynamoDBPersistenceLayer` (table',
    '`id` key, on the same dynalite), key `[source, orderId]` for a purchase and `[source, refundId]` for a refund by',
    "JMESPath (a key prefix each), the Lambda context registered so a dead attempt's in-progress record lapses with the",
    "function's timeout instead of blocking the event for the record's hour, the project's Open API client (timeouts,",
    "GET retries), the order or refund id in the grant's remarks. The refund handler finds the order's credit in the",
    "point history by the purchase's remark and debits its share with a negative point grant (the team keeps no ledger;",
    "the bridge's first refund of an order reads the history once as well). It needs GetItem, PutItem (conditional),",
    'UpdateItem and DeleteItem, all of which dynalite serves; no transactions, no UpdateTimeToLive (the record carries',
    'an `expiration` attribute; TTL is switched on in the table definition, not at run time). Left out because they',
    'change nothing counted here: the SQS batch processor around it (`@aws-lambda-powertools/batch`',
    '`processPartialResponse`: the bench delivers one record at a time and redelivers what failed), logger and metrics.',
    "**What it does not have, and a team would have to add by hand**: a look in the customer's point history for its",
    'own remark before calling again when an outcome is unknown (a reset after commit, a timeout, a process that died',
    'after the grant): without it every one of those re-runs the grant or the debit. Powertools cannot know whether the',
    'upstream committed: on an error it deletes the in-progress record so the retry runs the function again, and an',
    'in-progress record left by a dead attempt expires so the retry runs it again. Adding the look-up means a marker per',
    'operation, parsing the history, paging, a lease that covers the look-up and the call, and, for refunds, what was',
    'debited so far when an order is refunded in several parts and what to do when the member no longer holds the points:',
    'that is the ledger of this project.',
    '',
  ];
}
