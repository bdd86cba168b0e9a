/**
 * Shared setup for the processing tests: the real emulator (frozen clock), dynalite with the ledger
 * table, the real Open API client, and a processor built from them with a hand-moved clock.
 */
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { ProcessingSettings } from '../../../../shared/config/processing-settings.js';
import { createLedger, type Ledger } from '../../../../shared/ledger/index.js';
import { createOpenApiClient, staticCredentials, type OpenApiClient } from '../../../../shared/openapi/index.js';
import {
  createProcessor,
  type Checkpoint,
  type CheckpointStep,
  type ProcessOutcome,
  type Processor,
} from '../../../../shared/points/index.js';
import type { Campaign } from '../../../../shared/campaigns/index.js';
import type { PurchaseEvent, RefundEvent } from '../../../../shared/events/index.js';
import { manualClock, startDynalite, type LocalDynamo } from '../../../../kit/dynalite.js';
import { startTestEmulator, testClient, type TestEmulator } from '../../../support/emulator.js';

export const CLIENT_ID = 'test-client';

/** Thrown from the checkpoint hook: the worker dies at that line. */
export class SimulatedCrash extends Error {}
export const LEASE_SECONDS = 60;
export const REFUND_WAIT_SECONDS = 120;
/** The in-doubt horizon the processing tests run with (the least a stage may set is the lease's 15-s margin). */
export const IN_DOUBT_SECONDS = 20;

/** Seed customers: gold earns 5% of the amount, regular 1%. */
export const MEMBERS = [
  { id: 'member-gold', login_id: 'gold', password: 'pass1234', rank: 'gold', external_ids: { shopify: 'cust-gold' } },
  { id: 'member-regular', login_id: 'regular', password: 'pass1234', external_ids: { shopify: 'cust-regular' } },
];

export const emulatorConfig = (clientOverrides: Record<string, unknown> = {}) => ({
  now: '2026-01-15 10:00:00',
  clients: [testClient({ members: MEMBERS, ...clientOverrides })],
});

export interface Harness {
  emulator: TestEmulator;
  dynamo: LocalDynamo;
  clock: ReturnType<typeof manualClock>;
  api: OpenApiClient;
  ledger: Ledger;
  processor(options?: { checkpoint?: Checkpoint; settings?: Partial<ProcessingSettings> }): Processor;
  /**
   * Runs `event` and holds it at `step` while `meanwhile` runs: a fixed interleaving of two deliveries.
   * Returns [outcome of event, outcome of meanwhile].
   */
  /** Processes `event` with the worker dying at `step` (a throw from the checkpoint hook); resolves once it has. */
  crashAt(step: CheckpointStep, event: unknown): Promise<void>;
  whileHeldAt(step: CheckpointStep, event: unknown, meanwhile: () => Promise<ProcessOutcome>): Promise<[ProcessOutcome, ProcessOutcome]>;
  /** Past every lease taken so far. */
  expireLeases(): void;
  /** Moves the clock past every lease and the in-doubt horizon of any call sent until now. */
  passHorizon(): void;
  /** Point-history entries of a member carrying `marker` in remarks. */
  entries(memberId: string, marker: string): Promise<number[]>;
  balance(memberId: string): Promise<number>;
  /** Calls per route since the last emulator reset. */
  calls(route: string): Promise<number>;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const emulator = await startTestEmulator(emulatorConfig());
  const dynamo = await startDynalite();
  const clock = manualClock();
  const api = createOpenApiClient({
    credentials: staticCredentials({ baseUrl: emulator.url, clientId: CLIENT_ID, clientSecret: 'test-secret' }),
    // Short enough that the `delay` fault outlasts it without making the tests slow.
    timeouts: { connectMs: 1000, headersMs: 400, bodyMs: 1000 },
    readRetries: 0,
  });
  const ledger = createLedger({
    client: dynamo.documentClient,
    tableName: dynamo.tableName,
    clock,
    leaseSeconds: LEASE_SECONDS,
  });
  const processor: Harness['processor'] = (options = {}) =>
    createProcessor({
      ledger,
      openapi: api,
      clock,
      settings: {
        ...ProcessingSettings.parse({
          leaseSeconds: LEASE_SECONDS,
          refundWaitSeconds: REFUND_WAIT_SECONDS,
          inDoubtSeconds: IN_DOUBT_SECONDS,
          ...options.settings,
        }),
        // Not a field of the schema (CAMPAIGNS_CONFIG is read apart): parse would drop it.
        ...(options.settings?.campaigns ? { campaigns: options.settings.campaigns } : {}),
      },
      ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
    });
  return {
    emulator,
    dynamo,
    clock,
    api,
    ledger,
    processor,
    async crashAt(step, event) {
      const crash: Checkpoint = (s) => {
        if (s === step) throw new SimulatedCrash(`crash at ${s}`);
      };
      await expect(processor({ checkpoint: crash }).process(event)).rejects.toThrow(SimulatedCrash);
    },
    async whileHeldAt(step, event, meanwhile) {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let reached!: () => void;
      const atStep = new Promise<void>((resolve) => (reached = resolve));
      const checkpoint: Checkpoint = async (s) => {
        if (s !== step) return;
        reached();
        await held;
      };
      const first = processor({ checkpoint }).process(event);
      await atStep;
      const second = await meanwhile();
      release();
      return [await first, second];
    },
    expireLeases: () => clock.advance(LEASE_SECONDS * 1000 + 1),
    passHorizon: () => clock.advance((LEASE_SECONDS + IN_DOUBT_SECONDS) * 1000 + 1),
    async entries(memberId, marker) {
      const page = await api.listPoints(memberId, { perPage: 1000 });
      return page.points.filter((p) => p.remarks === marker).map((p) => p.point);
    },
    balance: async (memberId) => (await api.getMember(memberId)).point,
    calls: async (route) => (await emulator.stats(CLIENT_ID))?.routes[route]?.total ?? 0,
    async close() {
      await api.close();
      await emulator.close();
      await dynamo.stop();
    },
  };
}

/**
 * Registers the hooks that give a test file one harness, with the emulator reset to
 * `emulatorConfig()` before each test. The harness is filled in place by those hooks (the object it
 * copies holds closures only), so a test uses it as it would the harness itself.
 */
export function useHarness(): Harness {
  const h = {} as Harness;
  beforeAll(async () => {
    Object.assign(h, await startHarness());
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(async () => {
    await h.emulator.reset(emulatorConfig());
  });
  return h;
}

/**
 * The worker's environment as the stack gives it, pointed at the harness's dynalite and emulator (the
 * emulator's test client), plus `extra` (a test's own timing or sender access).
 */
export const workerEnv = (h: Harness, extra: Record<string, string> = {}): Record<string, string> => ({
  LEDGER_TABLE: h.dynamo.tableName,
  DYNAMODB_ENDPOINT: h.dynamo.endpoint,
  OPENAPI_BASE_URL: h.emulator.url,
  OPENAPI_CLIENT_ID: 'test-client',
  OPENAPI_CLIENT_SECRET: 'test-secret',
  POWERTOOLS_METRICS_NAMESPACE: 'test',
  IN_DOUBT_SECONDS: String(IN_DOUBT_SECONDS),
  ...extra,
});

let orders = 0;
/** A purchase of a unique order by the gold customer (5%: 1000 -> 50 points). */
export function purchase(overrides: Partial<PurchaseEvent> = {}): PurchaseEvent {
  const orderId = overrides.orderId ?? `order-${process.pid}-${++orders}`;
  return {
    type: 'purchase',
    eventId: `shopify:order:${orderId}`,
    source: 'shopify',
    orderId,
    customer: { externalKey: 'shopify', externalId: 'cust-gold' },
    currency: 'JPY',
    occurredAt: '2026-01-15T10:00:00+09:00',
    pointTitle: 'Purchase',
    test: false,
    delivery: { id: `d-${orderId}`, topic: 'orders/paid' },
    eligibleAmount: 1000,
    expiryDays: 365,
    ...overrides,
  };
}

/** A purchase that earns at fulfilment (`earnAfter: fulfilled`): provisional until its fulfilment. */
export const shipped = (overrides: Partial<PurchaseEvent> = {}) => purchase({ earnAfter: { kind: 'fulfilled' }, ...overrides });

/** The orders/fulfilled delivery of the same order (Shopify sends the whole order again). */
export const fulfilment = (p: PurchaseEvent): PurchaseEvent => ({
  ...p,
  eventId: `${p.eventId}:fulfilled`,
  delivery: { id: `${p.delivery.id}-fulfilled`, topic: 'orders/fulfilled' },
  earnMoment: 'fulfilled',
});

/** ポイント2倍 on the day the harness's purchases happen (2026-01-15 10:00 JST). */
export const DOUBLE_DAY: Campaign = {
  id: 'double-jan',
  title: 'ポイント2倍デー',
  from: '2026-01-15T00:00:00+09:00',
  to: '2026-01-16T00:00:00+09:00',
  multiplier: '2',
};

export function refund(of: PurchaseEvent, refundId: string, refundAmount: number, overrides: Partial<RefundEvent> = {}): RefundEvent {
  return {
    type: 'refund',
    eventId: `shopify:refund:${of.orderId}:${refundId}`,
    source: of.source,
    orderId: of.orderId,
    customer: of.customer,
    currency: of.currency,
    occurredAt: '2026-01-16T10:00:00+09:00',
    pointTitle: 'Refund',
    test: false,
    delivery: { id: `d-${of.orderId}-${refundId}`, topic: 'refunds/create' },
    refundId,
    refundAmount,
    refundsRemainder: false,
    ...overrides,
  };
}

export const CALCULATION = 'POST /api/ext/users/{id}/points/calculation';
export const GRANT = 'POST /api/ext/users/{id}/points';
export const LOOKUP = 'GET /api/ext/users/external_id/{external_key}/{external_id}';
export const HISTORY = 'GET /api/ext/users/{id}/points';
