import * as z from 'zod'; // namespace import: lets esbuild drop zod's locales from Lambda bundles
import { ENV } from './environment.js';
import { DEFAULT_LEDGER_TTL_DAYS, MAX_LEDGER_TTL_DAYS, MIN_LEDGER_TTL_DAYS } from './ledger-retention.js';
import { DEFAULT_UPSTREAM_BUDGET_PER_MINUTE, MIN_UPSTREAM_BUDGET_PER_MINUTE, UPSTREAM_CEILING_PER_MINUTE } from './throughput.js';
import { deriveTiming, LEASE_MARGIN_SECONDS, TIMING_DEFAULTS } from './timing.js';
import { ConfigurationError } from './errors.js';
import { lazyObject } from '../schema/index.js';
import { type Campaigns, parseCampaigns } from '../campaigns/index.js';

/** The defaults of the one timing derivation (shared/config/timing.ts). */
const DEFAULT_TIMING = deriveTiming();

/** A number given as an environment string ("" or absent means: use the default). */
const envInt = (min: number, max: number, fallback: number) =>
  z.preprocess(
    (v) => (v === undefined || v === '' ? undefined : typeof v === 'string' ? Number(v) : v),
    z.number().int().min(min).max(max).default(fallback),
  );

export const ProcessingSettings = lazyObject(z.object, () => ({
  /** What a refund does when the customer no longer holds the points: debit what is held, or park. */
  insufficientPointsPolicy: z.enum(['clamp', 'park']).default('clamp'),
  /**
   * How long a refund that arrived before its purchase is retried before it is parked. The purchase
   * usually sits behind the refund in the same FIFO group, so a long wait only delays it; a parked
   * refund is picked up when the purchase is credited, so nothing is lost by parking early.
   */
  refundWaitSeconds: envInt(0, 7 * 86_400, TIMING_DEFAULTS.refundWaitSeconds),
  /** Finished ledger records expire after this many days (long enough for late refunds). */
  ledgerTtlDays: envInt(MIN_LEDGER_TTL_DAYS, MAX_LEDGER_TTL_DAYS, DEFAULT_LEDGER_TTL_DAYS),
  /**
   * A claim's lease. Need not outlive an attempt (the Lambda timeout): the holder sends no state-changing
   * call that could outlast it (shared/openapi/send-window.ts); it only bounds how soon a takeover may start.
   */
  leaseSeconds: envInt(5, 3600, DEFAULT_TIMING.leaseSeconds),
  /**
   * Open API requests per minute per endpoint for the whole deployment (shared by every container and
   * function: shared/upstream); default 1,800, 90 % of the spec's recommended 2,000.
   */
  upstreamBudgetPerMinute: envInt(MIN_UPSTREAM_BUDGET_PER_MINUTE, UPSTREAM_CEILING_PER_MINUTE, DEFAULT_UPSTREAM_BUDGET_PER_MINUTE),
  /** Point-history pages (1000 entries each) the audit reads per member; protocol searches page to their boundary (shared/points/engine/search.ts). */
  historyPages: envInt(1, 100, 5),
  /** No points call whose ending proved nothing is sent again before this has passed since its send (shared/points/engine). */
  inDoubtSeconds: envInt(LEASE_MARGIN_SECONDS, 86_400, DEFAULT_TIMING.inDoubtSeconds),
  /** Deferral of a waiting event: base x 2^(receive-1) s, capped, jittered (shared/config/timing.ts). */
  backoffBaseSeconds: envInt(1, 43_200, DEFAULT_TIMING.backoffBaseSeconds),
  backoffCapSeconds: envInt(1, 43_200, DEFAULT_TIMING.backoffCapSeconds),
  /** A waiting event older than this is no longer deferred: it fails its way to the DLQ. */
  retryHorizonSeconds: envInt(60, 14 * 86_400, DEFAULT_TIMING.retryHorizonSeconds),
  /** The circuit breaker stays open this long before one probe goes through. */
  circuitOpenSeconds: envInt(1, 43_200, DEFAULT_TIMING.circuitOpenSeconds),
}));
/** The settings, with the campaign rules (CAMPAIGNS_CONFIG) when any are given. */
export type ProcessingSettings = z.infer<typeof ProcessingSettings> & { campaigns?: Campaigns | undefined };

/** Reads the settings from the environment; a bad value is a clear error naming the variable. */
export function processingSettingsFromEnv(env: NodeJS.ProcessEnv): ProcessingSettings {
  const raw = {
    insufficientPointsPolicy: env[ENV.INSUFFICIENT_POINTS_POLICY] || undefined,
    refundWaitSeconds: env[ENV.REFUND_WAIT_SECONDS],
    ledgerTtlDays: env[ENV.LEDGER_TTL_DAYS],
    leaseSeconds: env[ENV.LEASE_SECONDS],
    upstreamBudgetPerMinute: env[ENV.UPSTREAM_BUDGET_PER_MINUTE],
    backoffBaseSeconds: env[ENV.RETRY_BACKOFF_BASE_SECONDS],
    backoffCapSeconds: env[ENV.RETRY_BACKOFF_CAP_SECONDS],
    retryHorizonSeconds: env[ENV.RETRY_HORIZON_SECONDS],
    circuitOpenSeconds: env[ENV.CIRCUIT_OPEN_SECONDS],
    inDoubtSeconds: env[ENV.IN_DOUBT_SECONDS],
  };
  const parsed = ProcessingSettings.safeParse(raw);
  if (parsed.success) {
    const campaigns = campaignsFromEnv(env[ENV.CAMPAIGNS_CONFIG]);
    return campaigns.length > 0 ? { ...parsed.data, campaigns } : parsed.data;
  }
  const names: Record<string, string> = {
    insufficientPointsPolicy: ENV.INSUFFICIENT_POINTS_POLICY,
    refundWaitSeconds: ENV.REFUND_WAIT_SECONDS,
    ledgerTtlDays: ENV.LEDGER_TTL_DAYS,
    leaseSeconds: ENV.LEASE_SECONDS,
    upstreamBudgetPerMinute: ENV.UPSTREAM_BUDGET_PER_MINUTE,
    backoffBaseSeconds: ENV.RETRY_BACKOFF_BASE_SECONDS,
    backoffCapSeconds: ENV.RETRY_BACKOFF_CAP_SECONDS,
    retryHorizonSeconds: ENV.RETRY_HORIZON_SECONDS,
    circuitOpenSeconds: ENV.CIRCUIT_OPEN_SECONDS,
    inDoubtSeconds: ENV.IN_DOUBT_SECONDS,
  };
  const issues = parsed.error.issues.map((i) => {
    const key = String(i.path[0] ?? '');
    return `${names[key] ?? key}: ${i.message}`;
  });
  throw new ConfigurationError('invalid_processing_settings', `invalid processing settings: ${issues.join('; ')}`);
}

/** The campaign rules from CAMPAIGNS_CONFIG (none when unset); a bad rule is refused with its id and field. */
function campaignsFromEnv(text: string | undefined): Campaigns {
  if (text === undefined || text.trim() === '') return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigurationError('invalid_processing_settings', `invalid processing settings: ${ENV.CAMPAIGNS_CONFIG}: not JSON`);
  }
  const parsed = parseCampaigns(json, ENV.CAMPAIGNS_CONFIG);
  if (parsed.ok) return parsed.campaigns;
  throw new ConfigurationError('invalid_processing_settings', `invalid processing settings: ${parsed.problems.join('; ')}`);
}
