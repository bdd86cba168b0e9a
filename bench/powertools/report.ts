import { writeFile } from 'node:fs/promises';
import type { ComparisonFigures, KindFigures, SideFigures } from './compare.js';
import { BUSY_ENTRIES, CLIENT_TIMEOUT_MS, KINDS_OF, LAMBDA_TIMEOUT_MS, OPENING_POINTS } from './plan.js';
import { comparisonSvg } from './plot.js';

/** The comparison's place in the bench output: the JSON figures, the results.md section, the SVG file. */

export const PLOT_FILE = 'powertools-comparison.svg';

const SIDES = ['bridge', 'powertools', 'powertoolsHistory'] as const;
type SideKey = (typeof SIDES)[number];
const LABEL: Record<SideKey, string> = { bridge: 'bridge', powertools: 'Powertools', powertoolsHistory: 'Powertools + history check' };

/** Per event type and fault kind, each side's events, doubled, lost, writes and calls. */
export function byKind(figures: ComparisonFigures) {
  return Object.fromEntries(
    (['purchase', 'refund'] as const).map((type) => [
      type,
      Object.fromEntries(KINDS_OF[type].map((k) => [k, Object.fromEntries(SIDES.map((side) => [side, figures[side].byKind[type][k]]))])),
    ]),
  ) as Record<'purchase' | 'refund', Record<string, Record<SideKey, KindFigures | undefined>>>;
}

/** The kinds (type/kind) where a side doubled or lost anything: the headline, from the per-kind table. */
export function failingKinds(figures: ComparisonFigures, side: SideKey): string[] {
  return Object.entries(byKind(figures)).flatMap(([type, kinds]) =>
    Object.entries(kinds).flatMap(([kind, sides]) => {
      const k = sides[side];
      return k && (k.doubled > 0 || k.lost > 0) ? [`${type} ${kind} (${k.doubled} doubled, ${k.lost} lost of ${k.events})`] : [];
    }),
  );
}

/** The JSON of `comparison` (the per-purchase series stays in the plot). */
export function comparisonJson(figures: ComparisonFigures) {
  const side = ({ cumulative: _series, byKind: _kinds, ...rest }: SideFigures) => rest;
  return {
    bridge: side(figures.bridge),
    powertools: side(figures.powertools),
    powertoolsHistory: side(figures.powertoolsHistory),
    byKind: byKind(figures),
    faultMix: figures.faultMix,
    failingKinds: Object.fromEntries(SIDES.map((s) => [s, failingKinds(figures, s)])),
  };
}

export async function writeComparisonPlot(figures: ComparisonFigures, path: string): Promise<void> {
  await writeFile(path, comparisonSvg(figures));
}

/** The rows of the bench's main table. */
export function comparisonRows(figures: ComparisonFigures) {
  const area = 'vs Powertools';
  const all = (f: (s: SideFigures) => number) => SIDES.map((s) => f(figures[s])).join(' / ');
  const sides = 'bridge / Powertools / + history check';
  const b = figures.bridge;
  return [
    {
      area,
      figure: `same ${b.purchases} purchases + ${b.refunds} refunds and faults: credits doubled, ${sides}`,
      value: all((s) => s.doubledCredits),
      limit: 'bridge 0',
    },
    { area, figure: `debits doubled, ${sides}`, value: all((s) => s.doubledDebits), limit: 'bridge 0' },
    { area, figure: `credits + debits lost, ${sides}`, value: all((s) => s.lost), limit: 'bridge 0' },
    {
      area,
      figure: `fault kinds with a double or a loss, ${sides}`,
      value: SIDES.map((s) => failingKinds(figures, s).length).join(' / '),
      limit: 'bridge 0',
    },
    { area, figure: `DynamoDB writes per purchase, ${sides}`, value: all((s) => s.dynamoWritesPerPurchase), limit: '-' },
    { area, figure: `DynamoDB writes per refund, ${sides}`, value: all((s) => s.dynamoWritesPerRefund), limit: '-' },
    { area, figure: `upstream calls per purchase, ${sides}`, value: all((s) => s.upstreamCallsPerPurchase), limit: '-' },
    { area, figure: `upstream calls per refund, ${sides}`, value: all((s) => s.upstreamCallsPerRefund), limit: '-' },
    { area, figure: `p50 of an acknowledged delivery, ${sides}`, value: `${all((s) => s.p50Ms)} ms`, limit: '-' },
  ];
}

/** The per-kind table: one row per event type and fault kind, three sides. */
function kindRows(figures: ComparisonFigures): string[] {
  return Object.entries(byKind(figures)).flatMap(([type, kinds]) =>
    Object.entries(kinds).map(([kind, sides]) => {
      const n = Math.max(1, sides.bridge?.events ?? 0);
      const per = (x: number | undefined) => Math.round(((x ?? 0) / n) * 100) / 100;
      const cells = (s: KindFigures | undefined) =>
        `${s?.doubled ?? 0} / ${s?.lost ?? 0} | ${per(s?.dynamoWrites)} / ${per(s?.upstreamCalls)}`;
      return `| ${type} | ${kind} | ${sides.bridge?.events ?? 0} | ${SIDES.map((s) => cells(sides[s])).join(' | ')} |`;
    }),
  );
}

/** The headline: which kinds each side doubles or loses on, read from the per-kind table. */
function headline(figures: ComparisonFigures): string[] {
  return SIDES.map((s) => {
    const kinds = failingKinds(figures, s);
    return `- **${LABEL[s]}**: ${kinds.length === 0 ? 'doubles and loses nothing on any kind.' : `doubles or loses on ${kinds.join('; ')}.`}`;
  });
}

export function comparisonMarkdown(figures: ComparisonFigures): string[] {
  const b = figures.bridge;
  const row = (name: string, f: (s: SideFigures) => string | number) => `| ${name} | ${SIDES.map((s) => f(figures[s])).join(' | ')} |`;
  const mix = figures.faultMix;
  const mixLine = (type: 'purchase' | 'refund') =>
    Object.entries(mix[type])
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
  return [
    '## Side by side with Powertools idempotency',
    '',
    `The same ${b.purchases} purchases and ${b.refunds} refunds (one partial refund per order, seed ${figures.seed}) and the same`,
    "fault for each, through the bridge's worker (built as the production stack builds it, the activity record on), through",
    'a purchase and a refund handler written with `@aws-lambda-powertools/idempotency` (bench/powertools/handler.ts), and',
    'through the same handlers with the history check a careful team would add (on every attempt after the first, look for',
    "its own remark on the first page of the member's point history before granting). Credits and debits counted in the emulator's point",
    'histories against the model (one member per order: its positive entries are the credits, its negative ones the',
    "refund's debits); DynamoDB writes counted by a proxy in front of dynalite, upstream calls by the emulator's",
    '`/__emulator/stats` (token requests included).',
    '',
    '**Where each side doubles or loses** (from the per-kind table below, not from the totals, which the fault mix sets):',
    '',
    ...headline(figures),
    '',
    `**The fault mix** (dealt in turn, then shuffled with the seed): purchases ${mixLine('purchase')}; refunds ${mixLine('refund')}.`,
    `${Math.round(mix.unknownOutcomeShare * 100)} % of the events have a first attempt whose outcome its caller cannot know (the grant may have committed).`,
    '',
    '| | bridge | Powertools idempotency | Powertools + history check |',
    '|---|---:|---:|---:|',
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
    '| event | fault | events | bridge doubled / lost | bridge writes / calls | Powertools doubled / lost | Powertools writes / calls | + history check doubled / lost | + history check writes / calls |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...kindRows(figures),
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
    `times out before the next line), \`busy_member\` (the grant commits, the attempt dies after it, and ${BUSY_ENTRIES} newer entries`,
    "from elsewhere reach the member's history before the retry: the remark is no longer on a first page of 100) and, for",
    '`insufficient` refunds, the member spent all but half the debit before the refund came (the model is then a debit of',
    "what is left: the bridge's clamp, whose recorded shortfall is policy, not a loss). A redelivery after a dead attempt comes once its claim has lapsed: for the bridge",
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
    '**The third side** adds by hand what Powertools cannot know (whether the upstream committed): on every attempt',
    "after the first, a look for its own remark on the first page of the member's history before granting. Where the",
    'history check is enough, it is enough at fewer writes than the bridge; where it is not (a remark past the first page,',
    'a member who no longer holds the points), the table shows it. Not reproduced here: a grant that commits after the',
    "retry's history check (the emulator commits before it answers or holds the answer), two copies at once after an",
    'in-progress record expired, several partial refunds of one order: each needs more than this check (paging, a lease',
    'over the look-up and the call, the debits so far): that is the ledger of this project.',
    '',
  ];
}
