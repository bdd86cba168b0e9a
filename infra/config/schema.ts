import { z } from 'zod';
import {
  DEFAULT_UPSTREAM_BUDGET_PER_MINUTE,
  DEFAULT_UPSTREAM_LATENCY_MS,
  deriveTiming,
  MIN_UPSTREAM_BUDGET_PER_MINUTE,
  type Timing,
  timingProblems,
  UPSTREAM_CEILING_PER_MINUTE,
} from '../../shared/config/index.js';
import { Campaigns, parseCampaigns } from '../../shared/campaigns/index.js';
import { ReconcileConfig, reconcileProblem } from './reconcile.js';
import { redemptionProblem } from './redemption.js';
import { SecretName, SourceConfig, SourceName, shopDomainsProblem, sourcesProblem } from './sources.js';

/**
 * The per-stage configuration of a deployment, validated before any construct is built: a bad file
 * fails `cdk synth` with the field path, never a half-built template.
 */

export { UPSTREAM_CEILING_PER_MINUTE } from '../../shared/config/index.js';

/** The keys `rate` had before the one shared budget (issue 54): refused with how to convert them. */
const RETIRED_RATE_KEYS = ['budgetPerMinute', 'maxConcurrency'] as const;

function rateMigration(r: { budgetPerMinute?: unknown; maxConcurrency?: unknown }): string {
  const product =
    typeof r.budgetPerMinute === 'number' && typeof r.maxConcurrency === 'number'
      ? ` (here ${r.budgetPerMinute} x ${r.maxConcurrency} = ${r.budgetPerMinute * r.maxConcurrency})`
      : '';
  return (
    'rate.budgetPerMinute and rate.maxConcurrency are replaced by rate.upstreamPerMinute, the Open API budget per endpoint ' +
    `of the whole deployment (every function and container together): set "upstreamPerMinute" to budgetPerMinute x maxConcurrency${product}, ` +
    `at most ${UPSTREAM_CEILING_PER_MINUTE}, or leave it out for ${DEFAULT_UPSTREAM_BUDGET_PER_MINUTE}, and delete both keys; ` +
    "the worker's concurrency is derived from it (docs/deploy.md, Throughput)"
  );
}

/** The one upstream budget and what the worker's concurrency is derived from (shared/config/throughput.ts). */
const RateConfig = z
  .strictObject({
    /** Open API requests per minute per endpoint for the whole deployment (UPSTREAM_BUDGET_PER_MINUTE). */
    upstreamPerMinute: z
      .number()
      .int()
      .min(MIN_UPSTREAM_BUDGET_PER_MINUTE)
      .max(UPSTREAM_CEILING_PER_MINUTE)
      .default(DEFAULT_UPSTREAM_BUDGET_PER_MINUTE),
    /** Measured (or assumed) mean latency of one Open API call (UpstreamLatency, Average; not the p50): with the budget, it sets the worker's concurrency. */
    upstreamLatencyMs: z.number().int().min(10).max(10_000).default(DEFAULT_UPSTREAM_LATENCY_MS),
    // Retired: accepted by the shape only to be refused below with how to convert them.
    budgetPerMinute: z.unknown().optional(),
    maxConcurrency: z.unknown().optional(),
  })
  .superRefine((r, ctx) => {
    if (RETIRED_RATE_KEYS.some((k) => r[k] !== undefined)) ctx.addIssue({ code: 'custom', message: rateMigration(r) });
  })
  .transform(({ upstreamPerMinute, upstreamLatencyMs }) => ({ upstreamPerMinute, upstreamLatencyMs }))
  .prefault({});

/** CloudWatch Logs accepts only these retention periods (days). */
const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

const AccountId = z.string().regex(/^\d{12}$/, 'an AWS account id is 12 digits');
const Region = z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'an AWS region such as eu-west-1');
/** Bounded memory and timeout of one function, with that function's defaults. */
function functionSizing(memoryMiB: number, timeoutSeconds: number) {
  return z
    .strictObject({
      memoryMiB: z.number().int().min(128).max(3008).default(memoryMiB),
      timeoutSeconds: z.number().int().min(1).max(900).default(timeoutSeconds),
    })
    .prefault({});
}

export { VISIBILITY_TIMEOUT_FACTOR } from '../../shared/config/index.js';

/** How long the source queue keeps a message (SQS's default); the DLQ must keep its messages longer. */
export const QUEUE_RETENTION_DAYS = 4;

/** The smallest API burst a stage may configure: a flash sale's webhooks arrive together. */
export const MIN_BURST = 1000;

type TimingSource = {
  processing: { leaseSeconds?: number | undefined; refundWaitSeconds: number; inDoubtSeconds?: number | undefined };
  worker: { timeoutSeconds: number };
  queue: { maxReceiveCount?: number | undefined };
  retry: {
    backoffBaseSeconds?: number | undefined;
    backoffCapSeconds?: number | undefined;
    horizonSeconds?: number | undefined;
    circuitOpenSeconds?: number | undefined;
  };
};

/** Every timing setting of a stage, from the one derivation `npm start` uses too (shared/config/timing.ts). */
export function stageTiming(s: TimingSource): Timing {
  return deriveTiming({
    workerTimeoutSeconds: s.worker.timeoutSeconds,
    leaseSeconds: s.processing.leaseSeconds,
    maxReceiveCount: s.queue.maxReceiveCount,
    refundWaitSeconds: s.processing.refundWaitSeconds,
    backoffBaseSeconds: s.retry.backoffBaseSeconds,
    backoffCapSeconds: s.retry.backoffCapSeconds,
    retryHorizonSeconds: s.retry.horizonSeconds,
    retentionSeconds: QUEUE_RETENTION_DAYS * 86_400,
    circuitOpenSeconds: s.retry.circuitOpenSeconds,
    inDoubtSeconds: s.processing.inDoubtSeconds,
  });
}

/** Where each timing setting lives in a stage file (for the error's path). */
const TIMING_PATHS: Record<keyof Timing, (string | number)[]> = {
  workerTimeoutSeconds: ['worker', 'timeoutSeconds'],
  leaseSeconds: ['processing', 'leaseSeconds'],
  visibilityTimeoutSeconds: ['worker', 'timeoutSeconds'],
  maxReceiveCount: ['queue', 'maxReceiveCount'],
  refundWaitSeconds: ['processing', 'refundWaitSeconds'],
  backoffBaseSeconds: ['retry', 'backoffBaseSeconds'],
  backoffCapSeconds: ['retry', 'backoffCapSeconds'],
  retryHorizonSeconds: ['retry', 'horizonSeconds'],
  retentionSeconds: ['retry', 'horizonSeconds'],
  circuitOpenSeconds: ['retry', 'circuitOpenSeconds'],
  inDoubtSeconds: ['processing', 'inDoubtSeconds'],
};

export const StageConfig = z
  .strictObject({
    /** Used in stack, secret and metric names; lower case. */
    stageName: z.string().regex(/^[a-z][a-z0-9-]{1,19}$/, 'lower-case letters, digits and -, 2..20'),
    account: AccountId,
    region: Region,
    /** Production: the ledger table has deletion protection and is retained when the stack goes. */
    production: z.boolean(),
    /** Prefix of the secrets this stage creates; default `loyalty-bridge/<stageName>`. */
    secretPrefix: SecretName.optional(),
    /** Existing secret with {"base_url","client_id","client_secret"}; the stack only references it. */
    openApiSecretName: SecretName,
    /** Keyed by source name: one route `POST /webhooks/<name>` and one webhook secret each. */
    sources: z
      .record(SourceName, SourceConfig)
      .refine((s) => Object.keys(s).length > 0, 'at least one webhook source')
      .superRefine((sources, ctx) => {
        const problem = sourcesProblem(sources);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    /** Scheduled reconciliation with Shopify's Admin API, per Shopify source (infra/config/reconcile.ts). */
    reconcile: ReconcileConfig,
    processing: z
      .strictObject({
        insufficientPointsPolicy: z.enum(['clamp', 'park']).default('clamp'),
        /** How long a refund that arrived before its purchase is retried before it is parked. */
        refundWaitSeconds: z
          .number()
          .int()
          .min(0)
          .max(7 * 86_400)
          .default(120),
        /** Ledger records expire after this; must outlive the longest refund window. */
        ledgerTtlDays: z.number().int().min(1).max(3650).default(400),
        /**
         * Lease on a ledger record. It need not outlive the worker's timeout: no state-changing call is sent
         * that could outlast it (the send window, shared/openapi/send-window.ts), so a takeover after it finds
         * the holder's calls landed or dead. Longer only delays a takeover after a crash.
         */
        leaseSeconds: z.number().int().min(5).max(3600).optional(),
        /** The in-doubt horizon (IN_DOUBT_SECONDS): >= the lease's margin; default 120 s (shared/config/timing.ts). */
        inDoubtSeconds: z.number().int().min(1).max(86_400).optional(),
      })
      .prefault({}),
    /**
     * Campaign rules (shared/campaigns, docs/campaigns.md): checked here, so a bad rule fails `cdk synth`
     * with its id and field; the worker reads them as CAMPAIGNS_CONFIG.
     */
    campaigns: z
      .array(z.unknown())
      .default([])
      .superRefine((rules, ctx) => {
        const parsed = parseCampaigns(rules);
        if (!parsed.ok) for (const message of parsed.problems) ctx.addIssue({ code: 'custom', message });
      })
      .transform((rules): Campaigns => Campaigns.parse(rules)),
    rate: RateConfig,
    queue: z
      .strictObject({
        /** Deliveries before a message goes to the DLQ; default derived from the retry horizon (shared/config/timing.ts). */
        maxReceiveCount: z.number().int().min(1).max(1000).optional(),
        batchSize: z.number().int().min(1).max(10).default(10),
        /** Dead-letter messages are kept this long: longer than the source queue, at most SQS's 14 days. */
        dlqRetentionDays: z
          .number()
          .int()
          .min(QUEUE_RETENTION_DAYS + 1)
          .max(14)
          .default(14),
      })
      .prefault({}),
    /** Waiting is not failing: how events that cannot proceed yet are deferred (defaults: shared/config/timing.ts). */
    retry: z
      .strictObject({
        backoffBaseSeconds: z.number().int().min(1).max(43_200).optional(),
        backoffCapSeconds: z.number().int().min(1).max(43_200).optional(),
        /** How long an event may keep waiting before it is let fail towards the DLQ (default 24 h). */
        horizonSeconds: z
          .number()
          .int()
          .min(60)
          .max(14 * 86_400)
          .optional(),
        circuitOpenSeconds: z.number().int().min(1).max(43_200).optional(),
        /** Alarm when a container's circuit breaker has been open this long. */
        breakerOpenAlarmSeconds: z.number().int().min(60).default(900),
      })
      .prefault({}),
    /** receive-webhook answers within Shopify's few seconds; 10 s bounds a stuck invocation. */
    receiver: functionSizing(256, 10),
    worker: functionSizing(512, 30),
    api: z
      .strictObject({
        /**
         * Steady-state requests per second accepted by the HTTP API stage. A 429 is a failed delivery
         * to Shopify (retried, and 8 failures in a row over 4 hours delete the subscription), so the
         * gateway must not be the bottleneck: the queue is the buffer. docs/deploy.md has the figures.
         */
        rateLimit: z.number().positive().max(10_000).default(500),
        /** Requests accepted at once (token bucket): a flash sale sends its orders/paid in one burst. */
        burstLimit: z
          .number()
          .int()
          .min(MIN_BURST, `must be at least ${MIN_BURST}: a flash-sale burst must not be answered 429`)
          .max(5000)
          .default(2000),
      })
      .prefault({}),
    observability: z
      .strictObject({
        serviceName: z
          .string()
          .regex(/^[A-Za-z0-9_-]{1,64}$/)
          .default('loyalty-points-bridge'),
        /** CloudWatch namespace of the Powertools metrics (the upstream failure alarm reads it). */
        metricsNamespace: z
          .string()
          .regex(/^[A-Za-z0-9_/.#:-]{1,255}$/)
          .default('LoyaltyPointsBridge'),
        logLevel: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),
        logRetentionDays: z
          .number()
          .refine((d) => (LOG_RETENTION_DAYS as readonly number[]).includes(d), {
            message: `one of ${LOG_RETENTION_DAYS.join(', ')}`,
          })
          .default(30),
      })
      .prefault({}),
    /** The scheduled audit (functions/audit-ledger.ts): daily, over the records of the last `days` days. */
    audit: z
      .strictObject({
        days: z.number().int().min(1).max(400).default(3),
        /** Hour of the day (UTC) the audit runs. */
        hourUtc: z.number().int().min(0).max(23).default(3),
        memoryMiB: z.number().int().min(128).max(3008).default(512),
        /** It reads every audited customer's history at the rate budget: give it Lambda's maximum. */
        timeoutSeconds: z.number().int().min(60).max(900).default(900),
      })
      .prefault({}),
    alarms: z
      .strictObject({
        /** Subscribed to the stage's alarm topic (confirm the e-mail AWS sends). */
        email: z.email().optional(),
        /** Use an existing SNS topic instead of creating one. */
        topicArn: z
          .string()
          .regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/, 'an SNS topic ARN')
          .optional(),
        /** Alarm when the oldest queued event is older than this. */
        oldestMessageAgeSeconds: z.number().int().min(60).default(900),
        /** Alarm when this share of Open API requests fails over 5 minutes. */
        upstreamFailurePercent: z.number().min(0.1).max(100).default(5),
      })
      .refine((a) => !(a.email && a.topicArn), 'give either email or topicArn, not both')
      .prefault({}),
  })
  .superRefine((s, ctx) => {
    const problem = reconcileProblem(s);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['reconcile'] });
    const redemption = redemptionProblem(s);
    if (redemption) ctx.addIssue({ code: 'custom', message: redemption, path: ['sources'] });
    const shops = shopDomainsProblem(s);
    if (shops) ctx.addIssue({ code: 'custom', message: shops, path: ['sources'] });
  })
  // Every invariant between the timing settings, checked in one place (shared/config/timing.ts).
  .superRefine((s, ctx) => {
    for (const problem of timingProblems(stageTiming(s))) {
      ctx.addIssue({ code: 'custom', message: problem.message, path: TIMING_PATHS[problem.field] });
    }
  });
export type StageConfig = z.infer<typeof StageConfig>;
/** What a stage file may leave out (defaults fill it in). */
export type StageConfigInput = z.input<typeof StageConfig>;

export const PipelineConfig = z.strictObject({
  /** Account and region the pipeline itself lives in (the "tools" account). */
  account: AccountId,
  region: Region,
  /** CodeStar / CodeConnections connection to the repository host, created once in the console. */
  connectionArn: z
    .string()
    .regex(/^arn:aws[a-z-]*:(codestar-connections|codeconnections):[a-z0-9-]+:\d{12}:connection\/[A-Za-z0-9-]+$/, 'a connection ARN'),
  /** `owner/name` of the repository. */
  repository: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'owner/name'),
  branch: z.string().min(1).default('main'),
  /** Stage files deployed in this order; production stages wait for a manual approval. */
  stages: z.array(z.string().min(1)).min(1),
});
export type PipelineConfig = z.infer<typeof PipelineConfig>;
