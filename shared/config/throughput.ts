/**
 * The one upstream budget and what follows from it: how much of it the App Proxy keeps, and how many
 * worker containers the stack (and `npm start`) runs to use it. One derivation for the stack, the local
 * stack and the docs (docs/deploy.md, "Throughput").
 */

/** The Open API's recommended ceiling per client and per endpoint (requests a minute). */
export const UPSTREAM_CEILING_PER_MINUTE = 2_000;
/**
 * The default deployment budget per endpoint: 90 % of the ceiling, leaving 200 a minute for other
 * systems on the same client id and for the seconds by which our clock minute and the vendor's differ.
 */
export const DEFAULT_UPSTREAM_BUDGET_PER_MINUTE = 1_800;
/** The least budget: below 10 a minute the workers' 90 % would round to nothing. */
export const MIN_UPSTREAM_BUDGET_PER_MINUTE = 10;
/** The App Proxy's share of the budget, which no other caller may take: a storefront is never starved by a backlog. */
export const STOREFRONT_RESERVED_SHARE = 0.1;
/**
 * Assumed mean latency of one Open API call until a stage measures its own (UpstreamLatency, Average).
 * The mean, not the median: Little's law counts the time a call holds a container on average, and a
 * latency with a long tail has a mean well above its p50. 230 ms is the mean of the year-end model's
 * realistic distribution (chaos/year-end/latency.ts: log-normal p50 120 ms, p99 1.5 s has a mean of
 * 216 ms; its 0.2 % slow tail, cut at the client's 5-s timeout, adds ~10 ms), rounded up.
 */
export const DEFAULT_UPSTREAM_LATENCY_MS = 230;
/** A ledger write (DynamoDB conditional write, same region). */
export const LEDGER_WRITE_MS = 10;
/** What a purchase costs on its way: two Open API calls (lookup, calculation: different endpoints) and two ledger writes. */
export const CALLS_PER_PURCHASE = 2;
export const WRITES_PER_PURCHASE = 2;
/** Lambda's SQS event source accepts a maximum concurrency of 2..1000. */
export const MIN_WORKER_CONCURRENCY = 2;
export const MAX_WORKER_CONCURRENCY = 1_000;

/** The calls a minute of the budget that every caller but the App Proxy may take together while the reserve is guaranteed. */
export function bulkShare(perMinute: number): number {
  return perMinute - Math.ceil(perMinute * STOREFRONT_RESERVED_SHARE);
}

/**
 * Until this point of every clock minute the App Proxy's whole reserve is kept for it; from then on
 * what it has not used is lent to the other callers (issue 54: a backlog drained at 90 % of the budget
 * missed its goal while the storefront's share went unused), all but the calls its reserve's pace
 * (reserve / 60 s) would take in the minute's last 10 s: a shopper then still finds a few, and waits
 * at most until the next minute's start, where the whole reserve is back.
 */
export const STOREFRONT_RESERVE_LENT_FROM_MS = 50_000;

/**
 * The most the bulk callers (worker, audit, sweep, probe, operators) may have taken together of a
 * minute's budget, `msIntoMinute` into it (a later minute's: before its start, negative): the budget
 * less the App Proxy's reserve, and from STOREFRONT_RESERVE_LENT_FROM_MS the budget less the reserve's
 * last seconds. The App Proxy's own calls are counted apart (shared/openapi/shared-budget.ts), so they
 * never shrink this; the sum of both never passes the budget.
 */
export function bulkCapAt(perMinute: number, msIntoMinute: number): number {
  const reserve = perMinute - bulkShare(perMinute);
  if (msIntoMinute < STOREFRONT_RESERVE_LENT_FROM_MS) return perMinute - reserve;
  return perMinute - Math.ceil((reserve * (60_000 - STOREFRONT_RESERVE_LENT_FROM_MS)) / 60_000);
}

/**
 * Messages one container keeps in flight on average. A batch (up to 10 messages) runs its FIFO groups
 * side by side, and the product's groups are narrow (a till sale its own, a web order its customer's:
 * shared/queue messageGroupId), so a batch is wide; but it ends with its slowest message, and the
 * upstream's tail (p99 ~6 × the mean) keeps the others' slots idle meanwhile. Measured in the year-end
 * model (chaos/README.md, issue 54): at 30 receipts a second a container keeps 2.5 in flight (batches
 * of ~5 messages lasting 1.3 s, 0.6 s a message); 2 leaves a fifth spare. Counting 1, as before, ran
 * 13 containers where 7 feed the budget: at 50 a second the surplus only met a spent minute and was set
 * aside (51,000 budget deferrals in a 30-minute run, each a copy and a later attempt; none at 7), and
 * the backlog drained 10 % slower.
 */
export const MESSAGES_IN_FLIGHT_PER_CONTAINER = 2;

/**
 * Worker containers (the SQS event source's maximum concurrency) that keep the budget busy, by Little's
 * law: purchases a second the workers' share allows on the busiest endpoint of a purchase (one call
 * per purchase per endpoint; the lookup keeps the App Proxy's reserve) times the seconds one purchase
 * holds a container (at the mean latency), over the messages a container keeps in flight. A container
 * more than the budget can feed is not headroom: its calls find the minute spent and are set aside
 * (shared/retry budgetDeferralSeconds), each a copy, a later attempt and its own share of the faults.
 */
export function workerConcurrency(perMinute: number, latencyMs = DEFAULT_UPSTREAM_LATENCY_MS): number {
  const purchasesPerSecond = bulkShare(perMinute) / 60;
  const secondsPerPurchase = (CALLS_PER_PURCHASE * latencyMs + WRITES_PER_PURCHASE * LEDGER_WRITE_MS) / 1000;
  const n = Math.ceil((purchasesPerSecond * secondsPerPurchase) / MESSAGES_IN_FLIGHT_PER_CONTAINER);
  return Math.min(MAX_WORKER_CONCURRENCY, Math.max(MIN_WORKER_CONCURRENCY, n));
}
