import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock, startDynalite, type LocalDynamo } from '../../../../kit/dynalite.js';
import { budgetKey, ledgerBudgetStore } from '../../../../shared/ledger/index.js';
import { GetCommand } from '../../../../shared/dynamodb/index.js';
import { bulkCapAt, bulkShare, STOREFRONT_RESERVE_LENT_FROM_MS } from '../../../../shared/config/index.js';
import { type BudgetClass, type CallLimiter, createSharedBudget, routeOf } from '../../../../shared/openapi/index.js';

/**
 * The deployment's one upstream budget: limiter instances (as separate containers would hold them,
 * each with its own slices) over one DynamoDB (dynalite), on a manual clock. What is counted is the
 * slots granted per minute, which is what the pipeline sends.
 */
const MINUTE = 60_000;
const ROUTE = 'GET /api/ext/users/external_id/{external_key}/{external_id}';
let dynamo: LocalDynamo;
let requests = 0;

beforeAll(async () => {
  dynamo = await startDynalite();
});
afterAll(async () => {
  await dynamo?.stop();
});

/** A clock at the start of a minute of its own, so tests never share a counter. */
let minutes = 0;
function freshClock() {
  return manualClock(Date.parse('2026-12-28T00:00:00Z') + ++minutes * 10 * MINUTE);
}

function container(clock: ReturnType<typeof manualClock>, perMinute: number, cls: BudgetClass = 'bulk'): CallLimiter {
  const counted = {
    tableName: dynamo.tableName,
    client: {
      send: ((command: Parameters<typeof dynamo.documentClient.send>[0]) => {
        requests += 1;
        return dynamo.documentClient.send(command);
      }) as typeof dynamo.documentClient.send,
    },
  };
  // Its waits move the test's clock: none is real time.
  const sleep = async (ms: number) => clock.advance(ms);
  return createSharedBudget({ store: ledgerBudgetStore(counted), perMinute, class: cls, now: clock, sleep });
}

/** Takes slots on `route` within the current minute only (a caller that cannot wait): how many it got. */
async function drainOn(limiter: CallLimiter, route: string, max: number): Promise<number> {
  let got = 0;
  while (got < max && (await limiter.reserve(route, 0)) === 0) got += 1;
  return got;
}

/** Takes slots within the current minute only (a caller that cannot wait): how many it got. */
async function drain(limiter: CallLimiter, max: number): Promise<number> {
  let got = 0;
  while (got < max) {
    const wait = await limiter.reserve(ROUTE, 0);
    if (wait !== 0) break;
    got += 1;
  }
  return got;
}

describe('the shared upstream budget', () => {
  it('grants several containers together at most the workers’ share of the budget in a minute, and all of it', async () => {
    const clock = freshClock();
    const budget = 300;
    const containers = Array.from({ length: 7 }, () => container(clock, budget));
    const granted = await Promise.all(containers.map((c) => drain(c, 1_000)));
    const total = granted.reduce((a, b) => a + b, 0);
    expect(total).toBe(bulkShare(budget));
    expect(bulkShare(budget)).toBe(270);
  });

  it('never goes past the budget in any minute while containers come and go', async () => {
    const clock = freshClock();
    const budget = 200;
    const perMinute: number[] = [];
    for (let m = 0; m < 3; m++) {
      let total = 0;
      for (let wave = 0; wave < 4; wave++) {
        // Each wave: fresh containers (cold starts) beside the ones of earlier waves, mid-minute.
        const fresh = Array.from({ length: 3 }, () => container(clock, budget));
        const counts = await Promise.all(fresh.map((c) => drain(c, 40)));
        total += counts.reduce((a, b) => a + b, 0);
        clock.advance(10_000);
      }
      perMinute.push(total);
      clock.advance(MINUTE - 40_000);
    }
    for (const total of perMinute) expect(total).toBeLessThanOrEqual(bulkShare(budget));
  });

  it('keeps the storefront’s reserved share when the workers have spent theirs', async () => {
    const clock = freshClock();
    const budget = 500;
    const workers = Array.from({ length: 4 }, () => container(clock, budget));
    await Promise.all(workers.map((c) => drain(c, 1_000)));
    const storefront = container(clock, budget, 'storefront');
    expect(await drain(storefront, 1_000)).toBe(budget - bulkShare(budget));
    expect(await drain(workers[0] as CallLimiter, 1_000)).toBe(0);
  });

  it('does not count the storefront’s calls against the workers’ share', async () => {
    const clock = freshClock();
    const budget = 1_000;
    const storefront = container(clock, budget, 'storefront');
    // Two whole slices (20 + 40), none left leased and unspent, within its reserve of 100.
    expect(await drain(storefront, 60)).toBe(60);
    const workers = Array.from({ length: 3 }, () => container(clock, budget));
    const granted = await Promise.all(workers.map((c) => drain(c, 1_000)));
    expect(granted.reduce((a, b) => a + b, 0)).toBe(bulkShare(budget));
    // And the rest of its reserve is still the storefront's.
    expect(await drain(storefront, 1_000)).toBe(budget - bulkShare(budget) - 60);
  });

  it('lets the workers take the whole budget of an endpoint the App Proxy never calls, from the minute’s start', async () => {
    const clock = freshClock();
    const budget = 300;
    const calculation = routeOf('calculatePoints');
    const workers = Array.from({ length: 4 }, () => container(clock, budget));
    const granted = await Promise.all(workers.map((c) => drainOn(c, calculation, 1_000)));
    expect(granted.reduce((a, b) => a + b, 0)).toBe(budget);
    // On the lookup the App Proxy calls, its reserve is still kept.
    const lookups = await Promise.all(workers.map((c) => drainOn(c, ROUTE, 1_000)));
    expect(lookups.reduce((a, b) => a + b, 0)).toBe(bulkShare(budget));
  });

  it('lends the storefront’s unused reserve to the workers late in the minute, all but its last seconds', async () => {
    const clock = freshClock();
    const budget = 600;
    const workers = Array.from({ length: 3 }, () => container(clock, budget));
    const early = await Promise.all(workers.map((c) => drain(c, 1_000)));
    expect(early.reduce((a, b) => a + b, 0)).toBe(bulkShare(budget));
    clock.advance(STOREFRONT_RESERVE_LENT_FROM_MS);
    const late = await Promise.all(workers.map((c) => drain(c, 1_000)));
    const lent = late.reduce((a, b) => a + b, 0);
    expect(lent).toBeGreaterThan(0);
    expect(bulkShare(budget) + lent).toBe(bulkCapAt(budget, STOREFRONT_RESERVE_LENT_FROM_MS));
    // What is held for the last seconds is the storefront's: the minute ends spent to its last call, not past it.
    const storefront = container(clock, budget, 'storefront');
    expect(bulkShare(budget) + lent + (await drain(storefront, 1_000))).toBe(budget);
  });

  it('never lets workers and the storefront together past the budget in a minute, and keeps the reserve until the lend point', async () => {
    const clock = freshClock();
    const budget = 300;
    const reserve = budget - bulkShare(budget);
    const workers = Array.from({ length: 4 }, () => container(clock, budget));
    const storefront = container(clock, budget, 'storefront');
    let [bulkTotal, storeTotal] = [0, 0];
    // Every 5 s: the workers take all they can, a shopper 2 calls; just before the lend point a burst of shoppers takes what it can.
    for (let t = 0; t < MINUTE; t += 5_000) {
      const counts = await Promise.all(workers.map((c) => drain(c, 1_000)));
      bulkTotal += counts.reduce((a, b) => a + b, 0);
      const burst = t + 5_000 === STOREFRONT_RESERVE_LENT_FROM_MS;
      storeTotal += await drain(storefront, burst ? 1_000 : 2);
      if (burst) expect(storeTotal).toBe(reserve);
      expect(bulkTotal + storeTotal).toBeLessThanOrEqual(budget);
      clock.advance(5_000);
    }
  });

  it('reserves a call in the next minute when this one is spent, for a caller that can wait for it', async () => {
    const clock = freshClock();
    // Past the lend point: nothing more comes in this minute.
    clock.advance(STOREFRONT_RESERVE_LENT_FROM_MS + 2_000);
    const worker = container(clock, 20);
    expect(await drain(worker, 1_000)).toBe(bulkCapAt(20, STOREFRONT_RESERVE_LENT_FROM_MS + 2_000));
    expect(await worker.reserve(ROUTE, 5_000)).toBe(Number.POSITIVE_INFINITY);
    expect(await worker.reserve(ROUTE, 30_000)).toBe(8_000);
  });

  it('has a worker that spent the minute before the lend point wait for it, on its own clock, and take a lent call', async () => {
    const clock = freshClock();
    clock.advance(45_000);
    const worker = container(clock, 20);
    expect(await drain(worker, 1_000)).toBe(bulkShare(20));
    // Neither the lend point (5 s on) nor the next minute is in reach of a caller that can wait 4 s.
    expect(await worker.reserve(ROUTE, 4_000)).toBe(Number.POSITIVE_INFINITY);
    expect(await worker.reserve(ROUTE, 5_000)).toBe(0);
    expect(clock()).toBe(Math.floor(clock() / MINUTE) * MINUTE + STOREFRONT_RESERVE_LENT_FROM_MS);
  });

  it('leaves little of a minute leased and unspent when containers call at a steady pace to its end', async () => {
    const clock = freshClock();
    const minute = Math.floor(clock() / MINUTE);
    const containers = Array.from({ length: 10 }, () => container(clock, 1_800));
    let granted = 0;
    // Each container sends a call every half second: 120 a minute, 1,200 together, under the workers' 1,620.
    for (let t = 0; t < MINUTE; t += 500) {
      for (const c of containers) if ((await c.reserve(ROUTE, 0)) === 0) granted += 1;
      clock.advance(500);
    }
    expect(granted).toBe(1_200);
    const counter = await dynamo.documentClient.send(
      new GetCommand({ TableName: dynamo.tableName, Key: { pk: budgetKey(ROUTE, minute) }, ConsistentRead: true }),
    );
    // Slices of 20, 40, 50, 50 would lease 160 each, 400 lost to everyone; a lease sized by the pace loses a few each.
    expect((counter.Item?.used as number) - granted).toBeLessThanOrEqual(60);
  });

  it('asks DynamoDB at most once per 20 calls of a busy container', async () => {
    const clock = freshClock();
    const worker = container(clock, 1_800);
    const before = requests;
    expect(await drain(worker, 400)).toBe(400);
    expect(requests - before).toBeLessThanOrEqual(400 / 20);
  });
});
