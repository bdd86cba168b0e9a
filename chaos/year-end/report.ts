/**
 * The year-end run's report: the figures behind the verdict, the cost per million receipts at a
 * region's prices, and last the one line, keys in a fixed order (chaos/README.md, issue 54).
 */
import { costPer, type RegionPrices, type UsageCounts } from '../../kit/cost.js';
import { usageCounts } from './cost-model.js';
import { throughputBound, workersBound } from './mix.js';
import type { YearEndResult } from './simulate.js';

const fixed = (n: number, digits = 1) => n.toFixed(digits);

/** `year-end: receipts=N arrival_per_s=A bound_per_s=B throughput_per_s=T max_calls_per_minute=M oldest_s=O drained_s=D mismatches=0 unfinished=0 dead_lettered=0` */
export function yearEndLine(r: YearEndResult): string {
  const bound = throughputBound(r.options.budgetPerMinute, r.options.mix);
  const maxCalls = Math.max(0, ...[...r.maxCallsPerMinute].filter(([e]) => e !== 'token').map(([, n]) => n));
  return [
    'year-end:',
    `receipts=${r.receipts}`,
    `arrival_per_s=${fixed(r.arrivalPerSecond)}`,
    `bound_per_s=${fixed(bound.perSecond)}`,
    `throughput_per_s=${fixed(r.throughputPerSecond)}`,
    `max_calls_per_minute=${maxCalls}`,
    `oldest_s=${fixed(r.oldestSeconds)}`,
    `drained_s=${fixed(r.drainedSeconds)}`,
    `mismatches=${r.mismatches}`,
    `unfinished=${r.unfinished}`,
    `dead_lettered=${r.deadLettered}`,
  ].join(' ');
}

export function costLines(r: YearEndResult, region: string, prices: RegionPrices, counts: UsageCounts = usageCounts(r.usage)): string[] {
  const perMillion = costPer(r.receipts, 1e6, counts, prices);
  const usd = (n: number) => `$${n.toFixed(2)}`;
  return [
    `cost per 1M receipts at ${region} prices (bench/cost.ts), from this run's counts:`,
    ...Object.entries(perMillion.lines).map(([line, v]) => `  ${line.padEnd(15)} ${usd(v)}`),
    `  ${'total'.padEnd(15)} ${usd(perMillion.total)}`,
  ];
}

export function formatYearEnd(r: YearEndResult, region: string, prices: RegionPrices, wallSeconds: number): string[] {
  const o = r.options;
  const bound = throughputBound(o.budgetPerMinute, o.mix);
  const workers = workersBound(o.budgetPerMinute, o.mix);
  const counts = usageCounts(r.usage);
  const perEndpoint = [...r.maxCallsPerMinute].map(([e, n]) => `${e}=${n}`).join(' ');
  return [
    `year-end model: rate=${o.ratePerSecond}/s minutes=${o.minutes} containers=${o.containers} budget=${o.budgetPerMinute}/min per endpoint seed=${o.seed} fault_rate=${o.faultRate} crash_rate=${o.crashRate} wall_s=${wallSeconds.toFixed(1)}`,
    `bound: ${bound.endpoint} takes ${bound.callsPerReceipt.toFixed(2)} calls a receipt: B = ${fixed(bound.perSecond)}/s on the whole budget; the workers' share alone (the App Proxy's reserve unlent) ${Number.isFinite(workers.perSecond) ? `${fixed(workers.perSecond)}/s on ${workers.endpoint}` : 'none (no worker calls)'}`,
    `drain goal: D within 1.2 × backlog / B = ${fixed((1.2 * r.backlogAtEnd) / bound.perSecond)} s`,
    `most calls in one minute, per endpoint (every caller): ${perEndpoint}`,
    `mean calls a minute in the peak, per endpoint: ${[...r.meanCallsPerMinuteInPeak].map(([e, n]) => `${e}=${Math.round(n)}`).join(' ')}`,
    `receipts done out of their FIFO group's order: ${r.outOfOrder}`,
    `backlog when arrivals ended: ${r.backlogAtEnd}; budget deferrals (a call that could not get a slot within its invocation, set aside): ${r.usage.budgetDeferrals}; visibility changes: ${r.usage.sqsVisibilityChanges}`,
    `counted: api_gateway=${counts.apiGatewayRequests} lambda_requests=${counts.lambdaRequests} lambda_gb_s=${counts.lambdaGbSeconds.toFixed(0)} sqs_requests=${counts.sqsRequests} dynamodb_writes=${counts.dynamoWriteUnits} (budget leases ${r.usage.budgetLeases}) dynamodb_reads=${counts.dynamoReadUnits} log_bytes=${counts.logBytes}`,
    ...costLines(r, region, prices, counts),
    yearEndLine(r),
  ];
}
