import { writeFile } from 'node:fs/promises';
import type { ComparisonFigures, KindFigures, SideFigures } from './compare.js';
import { CLIENT_TIMEOUT_MS, FAULT_KINDS, LAMBDA_TIMEOUT_MS } from './plan.js';
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
      figure: `same ${b.events} purchases and faults: doubled, bridge / Powertools`,
      value: both((s) => s.doubled),
      limit: 'bridge 0',
    },
    { area, figure: 'lost, bridge / Powertools', value: both((s) => s.lost), limit: 'bridge 0' },
    { area, figure: 'DynamoDB writes per purchase, bridge / Powertools', value: both((s) => s.dynamoWritesPerPurchase), limit: '-' },
    { area, figure: 'upstream calls per purchase, bridge / Powertools', value: both((s) => s.upstreamCallsPerPurchase), limit: '-' },
    { area, figure: 'p50 of an acknowledged delivery, bridge / Powertools', value: `${both((s) => s.p50Ms)} ms`, limit: '-' },
  ];
}

export function comparisonMarkdown(figures: ComparisonFigures): string[] {
  const { bridge: b, powertools: p } = figures;
  const row = (name: string, f: (s: SideFigures) => string | number) => `| ${name} | ${f(b)} | ${f(p)} |`;
  const kinds = FAULT_KINDS.map((k) => {
    const kb = b.byKind[k];
    const kp = p.byKind[k];
    const n = Math.max(1, kb?.events ?? 0);
    const per = (x: number | undefined) => Math.round(((x ?? 0) / n) * 100) / 100;
    const cells = (s: KindFigures | undefined) =>
      `${s?.doubled ?? 0} / ${s?.lost ?? 0} | ${per(s?.dynamoWrites)} / ${per(s?.upstreamCalls)}`;
    return `| ${k} | ${kb?.events ?? 0} | ${cells(kb)} | ${cells(kp)} |`;
  });
  return [
    '## Side by side with Powertools idempotency',
    '',
    `The same ${b.events} purchases (seed ${figures.seed}) and the same fault for each, through the bridge's worker and through a`,
    'purchase handler written with `@aws-lambda-powertools/idempotency` (bench/powertools/handler.ts). Credits counted in',
    "the emulator's balances against the model; DynamoDB writes counted by a proxy in front of dynalite, upstream calls by",
    "the emulator's `/__emulator/stats` (token requests included).",
    '',
    '| | bridge | Powertools idempotency |',
    '|---|---:|---:|',
    row('purchases (events)', (s) => s.events),
    row('credits doubled', (s) => s.doubled),
    row('credits lost', (s) => s.lost),
    row('deliveries (redeliveries included)', (s) => s.deliveries),
    row('dead-lettered', (s) => s.deadLettered),
    row('DynamoDB writes per purchase', (s) => s.dynamoWritesPerPurchase),
    row('upstream calls per purchase', (s) => s.upstreamCallsPerPurchase),
    row('p50 ms of an acknowledged delivery', (s) => s.p50Ms),
    row('DynamoDB requests by operation', (s) =>
      Object.entries(s.dynamoOperations)
        .map(([op, n]) => `${op} ${n}`)
        .join(', '),
    ),
    '',
    'Per fault kind: credits doubled / lost, and DynamoDB writes / upstream calls per purchase:',
    '',
    '| fault | purchases | bridge doubled / lost | bridge writes / calls | Powertools doubled / lost | Powertools writes / calls |',
    '|---|---:|---:|---:|---:|---:|',
    ...kinds,
    '',
    `![cumulative doubled and lost credits over the run, both implementations](${PLOT_FILE})`,
    '',
    '**How.** Each side gets a fresh emulator and dynalite; purchases go one at a time (a `concurrent` one as two copies at',
    'once), so a fault armed on the points calculation hits the purchase it was armed for. A failed or dead attempt is',
    `delivered again (at most 8 deliveries). The Open API client is the project's, on both sides, with ${CLIENT_TIMEOUT_MS} ms`,
    'timeouts. Fault kinds: `duplicate` (delivered again after it succeeded), `concurrent`, the emulator faults',
    `\`error_500\`, \`reset_before\`, \`reset_after_commit\`, \`delay\` (answer held ${CLIENT_TIMEOUT_MS * 2} ms, past the client's timeout),`,
    'crashes at the same two boundaries on both sides (after the customer lookup, before the grant; after the grant,',
    'before anything is recorded: the attempt never gets past that line and runs no clean-up, as when a process dies) and',
    '`timeout` (the grant answers slowly and the function times out before the next line). A redelivery after a dead',
    "attempt comes once its claim has lapsed: for the bridge its ledger's clock moves past the lease; for Powertools",
    `the bench waits out the function's timeout (scaled to ${LAMBDA_TIMEOUT_MS} ms, registered through the Lambda context), as`,
    "SQS's visibility timeout, at least the function's timeout, would. The p50 is of acknowledged deliveries, faults",
    'included; DynamoDB writes include conditional writes that failed (they use write capacity too).',
    '',
    '**What the Powertools side is.** What a careful team writes: `makeIdempotent` + `DynamoDBPersistenceLayer` (table',
    '`id` key, on the same dynalite), key `[source, orderId]` by JMESPath, the Lambda context registered so a dead',
    "attempt's in-progress record lapses with the function's timeout instead of blocking the order for the record's hour,",
    "the project's Open API client (timeouts, GET retries), the order id in the grant's remarks. It needs GetItem,",
    'PutItem (conditional), UpdateItem and DeleteItem, all of which dynalite serves; no transactions, no UpdateTimeToLive',
    '(the record carries an `expiration` attribute; TTL is switched on in the table definition, not at run time).',
    'Left out because they change nothing counted here: the SQS batch processor around it (`@aws-lambda-powertools/batch`',
    '`processPartialResponse`: the bench delivers one record at a time and redelivers what failed), logger and metrics.',
    "**What it does not have, and a team would have to add by hand**: a look in the customer's point history for its",
    'remark before calling again when an outcome is unknown (a reset after commit, a timeout, a process that died after',
    'the grant): without it every one of those re-runs the grant. Powertools cannot know whether the upstream',
    'committed: on an error it deletes the in-progress record so the retry runs the function again, and an in-progress',
    'record left by a dead attempt expires so the retry runs it again. Adding the look-up means a marker per operation,',
    'parsing the history, paging, and refunds (share of the credit, several refunds per order): that is the ledger of',
    'this project. Refunds are not in this run (purchases only).',
    '',
  ];
}
