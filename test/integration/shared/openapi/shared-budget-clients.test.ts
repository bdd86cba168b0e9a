import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynalite, type LocalDynamo } from '../../../../kit/dynalite.js';
import { bulkShare } from '../../../../shared/config/index.js';
import { ledgerBudgetStore } from '../../../../shared/ledger/index.js';
import { type BudgetClass, createSharedBudget, isOpenApiError } from '../../../../shared/openapi/index.js';
import { ALICE, type Harness, rejectionOf, useHarness } from './emulator-harness.js';

/**
 * The Open API client over the deployment's shared budget: several clients, each as one container
 * holds it (its own token, its own slices), over one dynalite, against the emulator, whose stats count
 * what it received per minute of its clock. The clients' clock and the emulator's move together.
 */
let h: Harness;
let dynamo: LocalDynamo;
useHarness((started) => {
  h = started;
});
beforeAll(async () => {
  dynamo = await startDynalite();
});
afterAll(async () => {
  await dynamo?.stop();
});

const ROUTE = 'GET /api/ext/users/{id}';
const BUDGET = 200;

let hours = 0;
/** Clients of one test: a clock at a fresh hour (the counters in dynalite are the test's own), the emulator's moved there too. */
async function containers() {
  hours += 1;
  await h.advanceClock(hours * 3600);
  let now = Date.parse('2026-01-15T10:00:00Z') + hours * 3_600_000;
  const sleep = async (ms: number) => {
    now += ms;
    await h.advanceClock(ms / 1000);
  };
  const client = (i: number, cls: BudgetClass, remainingMs?: () => number) =>
    h.client({
      now: () => now,
      sleep,
      tokenScope: `container-${i}`,
      upstreamBudget: createSharedBudget({ store: ledgerBudgetStore(dynamo), perMinute: BUDGET, class: cls, now: () => now }),
      ...(remainingMs ? { remainingMs } : {}),
    });
  return { client };
}

describe('the Open API client over the shared budget', () => {
  it('keeps four containers together within the workers’ share of the budget in every minute the service counts', async () => {
    const { client } = await containers();
    const four = [1, 2, 3, 4].map((i) => client(i, 'bulk'));
    for (let round = 0; round < 60; round++) for (const c of four) expect((await c.getMember(ALICE)).id).toBe(ALICE);
    const route = (await h.stats()).routes[ROUTE];
    expect(route?.total).toBe(240);
    expect(route?.max_per_minute).toBeLessThanOrEqual(bulkShare(BUDGET));
  });

  it('refuses, before sending, a call whose invocation cannot wait for the next minute once the minute is spent, saying when a slot is expected', async () => {
    const { client } = await containers();
    const worker = client(5, 'bulk', () => 5_000);
    for (let i = 0; i < bulkShare(BUDGET); i++) await worker.getMember(ALICE);
    const refused = await rejectionOf(worker.getMember(ALICE));
    // A wait for the budget, not a timeout of the service: the next minute starts 60 s on (the clock stood still).
    expect(isOpenApiError(refused) && { kind: refused.kind, executed: refused.executed, retryAfterMs: refused.retryAfterMs }).toEqual({
      kind: 'budget_spent',
      executed: 'no',
      retryAfterMs: 60_000,
    });
    expect((await h.stats()).routes[ROUTE]?.total).toBe(bulkShare(BUDGET));
  });

  it('lets the App Proxy’s client call at once in a minute the workers have spent', async () => {
    const { client } = await containers();
    const worker = client(6, 'bulk', () => 5_000);
    for (let i = 0; i < bulkShare(BUDGET); i++) await worker.getMember(ALICE);
    const storefront = client(7, 'storefront', () => 5_000);
    for (let i = 0; i < BUDGET - bulkShare(BUDGET); i++) expect((await storefront.getMember(ALICE)).id).toBe(ALICE);
    expect((await h.stats()).routes[ROUTE]).toEqual({ total: BUDGET, max_per_minute: BUDGET });
  });
});
