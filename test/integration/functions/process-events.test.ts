import type { SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { depsFromEnv, makeHandler } from '../../../functions/process-events.js';
import { lambdaContext } from '../../../local/lambda/context.js';
import { purchaseMarker } from '../../../shared/points/index.js';
import { CIRCUIT_FIRST_PROBE_SECONDS, UPSTREAM_CEILING_PER_MINUTE } from '../../../shared/config/index.js';
import { FUNCTION_LEDGER_KEYS, guardLeadingKeys, ledgerBudgetStore } from '../../../shared/ledger/index.js';
import { createCircuitBreaker } from '../../../shared/retry/index.js';
import { clearTokenCache } from '../../../shared/openapi/index.js';
import { linkedEvent } from '../../../shared/customers/index.js';
import { createLocalQueue } from '../../../local/queue/index.js';
import { systemClock } from '../../../local/queue/clock.js';
import { CALCULATION, GRANT, IN_DOUBT_SECONDS, LOOKUP, purchase, refund, useHarness, workerEnv } from '../shared/points/harness.js';
import { sqsRecord as recordOf, sqsEvent } from '../../support/sqs-record.js';
import type { PointsEvent } from '../../../shared/events/index.js';
import { ASIDE_ATTRIBUTES, type MessageVisibility, type VisibilityChange } from '../../../shared/queue/index.js';
import { startSmaregiStandIn } from '../../../stand-ins/smaregi/index.js';
import { SmaregiSettings, smaregiThinEvent } from '../../../shared/sources/index.js';
import { smaregiFixture, smaregiTillTransaction } from '../../../kit/smaregi.js';

const h = useHarness();

let messages = 0;
const sqsRecord = (body: PointsEvent | object | string, groupId: string): SQSRecord => {
  const sequence = ++messages;
  return recordOf(body, { id: `msg-${sequence}`, groupId, sequence });
};
/** A record sent `ageMs` ago on the test's clock (its SentTimestamp decides the retry horizon). */
function sentAgo(record: SQSRecord, ageMs: number, receiveCount = 1): SQSRecord {
  return {
    ...record,
    attributes: { ...record.attributes, SentTimestamp: String(h.clock() - ageMs), ApproximateReceiveCount: String(receiveCount) },
  };
}

const env = () => workerEnv(h, { LEASE_SECONDS: '60', REFUND_WAIT_SECONDS: '120' });
/** The ledger as the worker's IAM grant lets it reach it (dynamodb:LeadingKeys): a key outside its prefixes fails the test. */
const asGranted = () => ({
  documentClient: guardLeadingKeys(h.dynamo.documentClient, FUNCTION_LEDGER_KEYS.worker, { tableName: h.dynamo.tableName }),
});
/** The handler as deployed, built from the environment (once per file), with the test's clock. */
let built: ReturnType<typeof makeHandler> | undefined;
const handler = () => (built ??= makeHandler(depsFromEnv(env(), { ...asGranted(), clock: h.clock })));

describe('process-events handler', () => {
  let output: string[];
  beforeEach(() => {
    output = [];
    // Captures what Powertools writes (INFO and EMF to stdout, WARN and ERROR to stderr).
    for (const stream of [process.stdout, process.stderr]) {
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        output.push(String(chunk));
        return true;
      });
    }
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  const lines = () =>
    output
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it('acknowledges a batch whose events are all processed', async () => {
    const a = purchase();
    const b = purchase({ customer: { externalKey: 'shopify', externalId: 'cust-regular' } });
    const result = await handler()(sqsEvent(sqsRecord(a, 'shopify:cust-gold'), sqsRecord(b, 'shopify:cust-regular')));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(await h.entries('member-gold', purchaseMarker(a.source, a.orderId))).toEqual([50]);
    expect(await h.entries('member-regular', purchaseMarker(b.source, b.orderId))).toEqual([10]);
  });

  it('returns a retried event and the rest of its FIFO group as failures, while other groups go on', async () => {
    const early = purchase();
    const waiting = sqsRecord(refund(early, 'r1', 1000), 'shopify:cust-gold');
    const behind = sqsRecord(early, 'shopify:cust-gold');
    const other = purchase({ customer: { externalKey: 'shopify', externalId: 'cust-regular' } });
    const result = await handler()(sqsEvent(waiting, behind, sqsRecord(other, 'shopify:cust-regular')));
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([waiting.messageId, behind.messageId]);
    expect((await h.ledger.getOrder(early))?.state).toBe('stub');
    expect((await h.ledger.getOrder(other))?.outcome).toBe('credited');
  });

  it('fails a message that is not a valid event, naming the problem in the log', async () => {
    const bad = sqsRecord('{"type":"purchase","orderId":""}', 'g');
    const result = await handler()(sqsEvent(bad));
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: bad.messageId }]);
    const line = lines().find((l) => l.message === 'event processed');
    expect(line).toMatchObject({ level: 'ERROR', outcome: 'invalid_event', action: 'retry', messageId: bad.messageId });
    expect(String(line?.reason)).toContain('orderId');
  });

  it('logs one structured line per event with ids and outcome, and no secret', async () => {
    const a = purchase();
    const b = purchase({ test: true });
    await handler()(sqsEvent(sqsRecord(a, 'g1'), sqsRecord(b, 'g2')));
    const logged = lines().filter((l) => l.message === 'event processed');
    expect(logged).toHaveLength(2);
    // Two groups run side by side: their lines come in either order.
    const of = (orderId: string) => logged.find((l) => l.orderId === orderId);
    expect(of(a.orderId)).toMatchObject({ level: 'INFO', outcome: 'credited', points: 50, source: 'shopify' });
    expect(of(b.orderId)).toMatchObject({ outcome: 'skipped', reason: 'test' });
    expect(output.join('')).not.toContain('test-secret');
    expect(output.join('')).not.toMatch(/Bearer\s+\S/);
  });

  it('publishes points credited, outcome counts and upstream latency as metrics', async () => {
    await handler()(sqsEvent(sqsRecord(purchase(), 'g1')));
    const emf = lines().find((l) => '_aws' in l);
    expect(emf).toMatchObject({ PointsCredited: 50, Outcome_credited: 1 });
    expect(Array.isArray(emf?.UpstreamLatency) ? emf.UpstreamLatency : [emf?.UpstreamLatency]).toHaveLength(2);
  });

  it('counts the Open API calls per endpoint, for the rate-budget widget of the dashboard', async () => {
    // Every request sent is counted, a repeat too: no token cached from before the emulator's reset
    // (whose 401 would repeat the lookup), a container of its own (no breaker probe left by earlier tests).
    clearTokenCache();
    const fresh = makeHandler(depsFromEnv(env(), { ...asGranted(), clock: h.clock }));
    await fresh(sqsEvent(sqsRecord(purchase(), 'g1')));
    const emf = lines().find((l) => '_aws' in l);
    expect(emf).toMatchObject({ UpstreamCalls_getMemberByExternalId: 1, UpstreamCalls_calculatePoints: 1 });
    expect(emf).not.toHaveProperty('UpstreamCalls_grantPoints');
  });

  // The upstream failure rate alarm divides UpstreamErrors by the count of UpstreamLatency samples.
  it('does not count a customer the membership service does not know as an upstream error', async () => {
    const stranger = purchase({ customer: { externalKey: 'shopify', externalId: 'cust-nobody' } });
    const result = await handler()(sqsEvent(sqsRecord(stranger, 'shopify:cust-nobody')));
    expect(result.batchItemFailures).toEqual([]);
    expect(lines().find((l) => l.message === 'event processed')).toMatchObject({ outcome: 'customer_not_found' });
    const emf = lines().find((l) => '_aws' in l);
    expect(emf?.UpstreamLatency).toBeDefined();
    expect(emf).not.toHaveProperty('UpstreamErrors');
  });

  it('counts a server fault of the membership service as an upstream error', async () => {
    // Every attempt of the lookup (the first try and the client's two read retries) gets a 500.
    await h.emulator.addFault({ method: 'GET', path: '^/api/ext/users/external_id/', fault: 'error_500', times: 3 });
    const record = sqsRecord(purchase(), 'shopify:cust-gold');
    const result = await handler()(sqsEvent(record));
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(lines().find((l) => '_aws' in l)).toMatchObject({ UpstreamErrors: 1 });
  });

  it('counts failed Smaregi reads for the SmaregiApiErrors alarm, and not a transaction Smaregi no longer has', async () => {
    const standIn = await startSmaregiStandIn({ contractId: 'c1', clientId: 'app', clientSecret: 'app-secret' });
    try {
      const access = {
        smaregi: { contractId: 'c1', apiOrigin: standIn.url, idOrigin: standIn.url, clientId: 'app', clientSecret: 'app-secret' },
      };
      const smaregiHandler = makeHandler(depsFromEnv({ ...env(), SMAREGI: JSON.stringify(access) }, { ...asGranted(), clock: h.clock }));
      const settings = SmaregiSettings.parse({ contractId: 'c1' });
      const thin = (id: string) => smaregiThinEvent(id, 'smaregi', settings, h.clock(), 'created');
      await smaregiHandler(sqsEvent(sqsRecord(thin('900'), 'smaregi:900')));
      const gone = lines().find((l) => '_aws' in l);
      output.length = 0;
      standIn.putTransaction(smaregiFixture('transaction-sale-tax-included.json') as never);
      await fetch(`${standIn.url}/__smaregi/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"status":500,"times":3}',
      });
      const result = await smaregiHandler(sqsEvent(sqsRecord(thin('25'), 'smaregi:25')));
      expect([gone?.SmaregiApiErrors, result.batchItemFailures.length, lines().find((l) => '_aws' in l)?.SmaregiApiErrors]).toEqual([
        undefined,
        1,
        1,
      ]);
    } finally {
      await standIn.close();
    }
  });

  it("counts a member's plain return naming no sale once in UnlinkedReturns, not again when it is delivered again", async () => {
    const standIn = await startSmaregiStandIn({ contractId: 'c1', clientId: 'app', clientSecret: 'app-secret' });
    try {
      const access = {
        smaregi: { contractId: 'c1', apiOrigin: standIn.url, idOrigin: standIn.url, clientId: 'app', clientSecret: 'app-secret' },
      };
      const smaregiHandler = makeHandler(depsFromEnv({ ...env(), SMAREGI: JSON.stringify(access) }, { ...asGranted(), clock: h.clock }));
      const settings = SmaregiSettings.parse({ contractId: 'c1' });
      standIn.putTransaction({ ...smaregiTillTransaction('950', { productId: 'P-950' }, true), customerCode: 'C-0001' } as never);
      const counted = async (action: string) => {
        output.length = 0;
        await smaregiHandler(sqsEvent(sqsRecord(smaregiThinEvent('950', 'smaregi', settings, h.clock(), action), 'smaregi:950')));
        return lines().find((l) => '_aws' in l)?.UnlinkedReturns;
      };
      expect([await counted('created'), await counted('edited')]).toEqual([1, undefined]);
    } finally {
      await standIn.close();
    }
  });
});

describe('process-events handler: crashes', () => {
  it('an event whose processing crashes is returned as a failure and credited once on redelivery', async () => {
    const crashing = makeHandler(
      depsFromEnv(env(), {
        ...asGranted(),
        clock: h.clock,
        checkpoint: (step) => {
          if (step === 'purchase:granted') throw new Error('simulated crash');
        },
        logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      }),
    );
    const event = purchase();
    const record = sqsRecord(event, 'g1');
    expect((await crashing(sqsEvent(record))).batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    h.expireLeases();
    expect((await handler()(sqsEvent(record))).batchItemFailures).toEqual([]);
    expect(await h.entries('member-gold', purchaseMarker(event.source, event.orderId))).toEqual([50]);
  });

  it('sets its batch to come back the invocation’s time left and one lease after it starts, so a crash does not wait out the queue’s visibility timeout', async () => {
    const changes: VisibilityChange[][] = [];
    const visibility: MessageVisibility = {
      changeVisibility: async (c) => {
        changes.push(c);
      },
    };
    let crashed!: () => void;
    const reached = new Promise<void>((resolve) => {
      crashed = resolve;
    });
    const dying = makeHandler(
      depsFromEnv(env(), {
        clock: h.clock,
        visibility,
        // The runtime dies here: nothing after this line runs, no answer goes back to the event source.
        checkpoint: (step) => {
          if (step !== 'purchase:granted') return undefined;
          crashed();
          return new Promise<never>(() => undefined);
        },
        logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      }),
    );
    const records = [
      sqsRecord(purchase(), 'shopify:cust-gold'),
      sqsRecord(purchase({ customer: { externalKey: 'shopify', externalId: 'cust-regular' } }), 'shopify:cust-regular'),
    ];
    void dying(sqsEvent(...records), lambdaContext('process-events', 30_000, h.clock));
    await reached;
    // 30 s left in the invocation, and the lease (LEASE_SECONDS 60 here): any claim made in it is over by then.
    expect(changes).toEqual([records.map((r) => ({ receiptHandle: r.receiptHandle, eventSourceARN: r.eventSourceARN, seconds: 30 + 60 }))]);
  });
});

describe('process-events handler: waiting is not failing', () => {
  // SQS itself cannot run here: this records the ChangeMessageVisibility calls the worker makes.
  let changes: VisibilityChange[][];
  const visibility: MessageVisibility = {
    changeVisibility: async (c) => {
      changes.push(c);
    },
  };
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const metrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };
  const deferring = () =>
    makeHandler(depsFromEnv(env(), { ...asGranted(), clock: h.clock, visibility, random: () => 0, logger: quiet, metrics }));
  beforeEach(() => {
    changes = [];
  });

  it('defers a waiting refund in place by the backoff when there is no queue to set it aside on, and the rest of its group with it', async () => {
    const early = purchase();
    const waiting = sentAgo(sqsRecord(refund(early, 'r1', 1000), 'shopify:order:1'), 1000, 3);
    const behind = sentAgo(sqsRecord(refund(early, 'r2', 1000), 'shopify:order:1'), 900);
    const result = await deferring()(sqsEvent(waiting, behind));
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([waiting.messageId, behind.messageId]);
    expect(changes).toEqual([
      [
        { receiptHandle: waiting.receiptHandle, eventSourceARN: waiting.eventSourceARN, seconds: 2, waiting: true },
        { receiptHandle: behind.receiptHandle, eventSourceARN: behind.eventSourceARN, seconds: 2, waiting: true },
      ],
    ]);
  });

  it('retries an invalid event after the poison backoff (5 s, then doubling), so poison reaches the DLQ within minutes', async () => {
    const bad = sentAgo(sqsRecord('{"type":"purchase","orderId":""}', 'g'), 0);
    expect((await deferring()(sqsEvent(bad))).batchItemFailures).toEqual([{ itemIdentifier: bad.messageId }]);
    const again = sentAgo(sqsRecord('{"type":"purchase","orderId":""}', 'g'), 0, 3);
    await deferring()(sqsEvent(again));
    expect(changes.map((c) => c.map((x) => x.seconds))).toEqual([[5], [20]]);
  });

  it('fails an event that has waited past the retry horizon as poison instead of deferring it again', async () => {
    const early = purchase();
    const old = sentAgo(sqsRecord(refund(early, 'r1', 1000), 'shopify:order:1'), 86_400_000, 1);
    expect((await deferring()(sqsEvent(old))).batchItemFailures).toEqual([{ itemIdentifier: old.messageId }]);
    expect(changes.map((c) => c.map((x) => x.seconds))).toEqual([[5]]);
  });

  it('stops calling a failing service once its breaker opens, and defers the queued events until the next probe', async () => {
    await h.emulator.addFault({ path: '^/api/ext/', fault: 'error_500', times: 1000 });
    const handle = deferring();
    const customers = ['cust-gold', 'cust-regular'];
    const batch = (n: number) =>
      sqsEvent(
        ...Array.from({ length: n }, (_, i) =>
          sentAgo(sqsRecord(purchase({ customer: { externalKey: 'shopify', externalId: customers[i % 2]! } }), `g${i}`), 0),
        ),
      );
    const lookups = () => h.calls('GET /api/ext/users/external_id/{external_key}/{external_id}');
    await handle(batch(5));
    const spent = await lookups();
    const later = batch(4);
    expect((await handle(later)).batchItemFailures).toHaveLength(4);
    expect(await lookups()).toBe(spent);
    const deferred = changes.at(-1)!;
    expect(deferred).toHaveLength(4);
    // Until its first probe (CIRCUIT_FIRST_PROBE_SECONDS after it opened), not a growing backoff.
    for (const change of deferred) expect(change.seconds).toBeGreaterThanOrEqual(CIRCUIT_FIRST_PROBE_SECONDS);
  });
});

describe('process-events handler: a waiting event does not hold its customer', () => {
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const metrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };
  let changes: VisibilityChange[][];
  const visibility: MessageVisibility = {
    changeVisibility: async (c) => {
      changes.push(c);
    },
  };
  /** The worker with a real local FIFO queue to set messages aside on (nothing consumes it here). */
  const withQueue = () => {
    changes = [];
    const queue = createLocalQueue({ clock: { ...systemClock, now: h.clock } });
    const handle = makeHandler(
      depsFromEnv(env(), { ...asGranted(), clock: h.clock, visibility, queue, random: () => 0, logger: quiet, metrics }),
    );
    return { queue, handle };
  };
  /** What the queue holds, as SQS would hand it out (a consumer that fails everything, so nothing is deleted). */
  const held = async (queue: ReturnType<typeof createLocalQueue>) => {
    const records: SQSRecord[] = [];
    queue.start(async (event) => {
      records.push(...event.Records);
      return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
    });
    await queue.settled();
    await queue.close();
    return records;
  };

  it('sets a waiting event aside in a group of its own and goes on with its customer’s next event', async () => {
    const { queue, handle } = withQueue();
    // The service answers 500 to the first calculation: its outcome is unknown, in doubt until the horizon.
    await h.emulator.addFault({ method: 'POST', path: '/points/calculation$', fault: 'error_500', times: 1 });
    const first = purchase();
    const next = purchase();
    const a = sentAgo(sqsRecord(first, 'shopify:shopify:cust-gold'), 0);
    const b = sentAgo(sqsRecord(next, 'shopify:shopify:cust-gold'), 0);
    const result = await handle(sqsEvent(a, b));
    // Both acknowledged: the first waits as a copy of its own, the second was credited behind it at once.
    expect(result.batchItemFailures).toEqual([]);
    expect(changes).toEqual([]);
    expect(await h.ledger.getOrder(next)).toMatchObject({ outcome: 'credited' });
    const [copy, ...others] = await held(queue);
    expect(others).toEqual([]);
    expect(JSON.parse(copy!.body)).toMatchObject({ eventId: first.eventId });
    expect(copy!.attributes.MessageGroupId).not.toBe('shopify:shopify:cust-gold');
    // Not before the in-doubt horizon: the 500 proves nothing, the call may still land.
    expect(Number(copy!.messageAttributes[ASIDE_ATTRIBUTES.wakeAt]?.stringValue)).toBe(h.clock() + IN_DOUBT_SECONDS * 1000);
    expect(copy!.messageAttributes[ASIDE_ATTRIBUTES.reason]?.stringValue).toBe('outcome_unknown');
  });

  it('lets a set-aside copy received before its time wait on in its own group, without calling the service', async () => {
    const { handle } = withQueue();
    const event = purchase();
    const copy = sentAgo(sqsRecord(event, 'aside:x'), 0, 1);
    copy.messageAttributes = {
      [ASIDE_ATTRIBUTES.wakeAt]: { dataType: 'String', stringValue: String(h.clock() + 30_000) },
      [ASIDE_ATTRIBUTES.waitingSince]: { dataType: 'String', stringValue: String(h.clock()) },
      [ASIDE_ATTRIBUTES.reason]: { dataType: 'String', stringValue: 'lease_held' },
    };
    const before = await h.calls(LOOKUP);
    expect((await handle(sqsEvent(copy))).batchItemFailures).toEqual([{ itemIdentifier: copy.messageId }]);
    expect(changes).toEqual([[{ receiptHandle: copy.receiptHandle, eventSourceARN: copy.eventSourceARN, seconds: 30, waiting: true }]]);
    expect(await h.calls(LOOKUP)).toBe(before);
    expect(await h.ledger.getOrder(event)).toBeUndefined();
  });

  it('sets an event met by an open breaker aside until the breaker lets a probe through, however often it waited before', async () => {
    const { queue, handle } = withQueue();
    await h.emulator.addFault({ path: '^/api/ext/', fault: 'error_500', times: 1000 });
    // Five failing calls open the breaker (its first probe 5 s later).
    await handle(sqsEvent(...Array.from({ length: 5 }, (_, i) => sentAgo(sqsRecord(purchase(), `open-${i}`), 0))));
    await h.emulator.clearFaults();
    const event = purchase();
    const copy = sentAgo(sqsRecord(event, 'aside:y'), 0, 1);
    copy.messageAttributes = {
      [ASIDE_ATTRIBUTES.wakeAt]: { dataType: 'String', stringValue: String(h.clock() - 1) },
      [ASIDE_ATTRIBUTES.waitingSince]: { dataType: 'String', stringValue: String(h.clock() - 600_000) },
      [ASIDE_ATTRIBUTES.reason]: { dataType: 'String', stringValue: 'circuit_open' },
      [ASIDE_ATTRIBUTES.waits]: { dataType: 'String', stringValue: '7' },
    };
    const before = await h.calls(LOOKUP);
    expect((await handle(sqsEvent(copy))).batchItemFailures).toEqual([]);
    expect(await h.calls(LOOKUP)).toBe(before);
    const again = (await held(queue)).find((r) => (JSON.parse(r.body) as { eventId: string }).eventId === event.eventId);
    const wakeAt = Number(again?.messageAttributes[ASIDE_ATTRIBUTES.wakeAt]?.stringValue);
    // Due when the breaker half-opens (its first probe, 5 s), not after the eighth step of a growing backoff.
    expect(wakeAt - h.clock()).toBeGreaterThanOrEqual((CIRCUIT_FIRST_PROBE_SECONDS - 1) * 1000);
    expect(wakeAt - h.clock()).toBeLessThanOrEqual((CIRCUIT_FIRST_PROBE_SECONDS + 1) * 1000);
  });

  it('starts the backoff again when a waiting event meets a server fault after waiting for something else (the breaker)', async () => {
    const { queue, handle } = withQueue();
    // More failing answers than the client's read retry: the lookup fails as a server fault.
    await h.emulator.addFault({ method: 'GET', path: '^/api/ext/users/external_id/', fault: 'error_500', times: 3 });
    const event = purchase();
    const copy = sentAgo(sqsRecord(event, 'aside:w'), 0, 1);
    copy.messageAttributes = {
      [ASIDE_ATTRIBUTES.wakeAt]: { dataType: 'String', stringValue: String(h.clock() - 1) },
      [ASIDE_ATTRIBUTES.waitingSince]: { dataType: 'String', stringValue: String(h.clock() - 600_000) },
      [ASIDE_ATTRIBUTES.reason]: { dataType: 'String', stringValue: 'circuit_open' },
      [ASIDE_ATTRIBUTES.waits]: { dataType: 'String', stringValue: '7' },
    };
    expect((await handle(sqsEvent(copy))).batchItemFailures).toEqual([]);
    const again = (await held(queue)).find((r) => (JSON.parse(r.body) as { eventId: string }).eventId === event.eventId);
    expect(again?.messageAttributes[ASIDE_ATTRIBUTES.reason]?.stringValue).toBe('upstream_error');
    // The first step (2 s), not the eighth (256 s) for having waited seven times for the breaker.
    expect(Number(again?.messageAttributes[ASIDE_ATTRIBUTES.wakeAt]?.stringValue) - h.clock()).toBe(2_000);
    expect(again?.messageAttributes[ASIDE_ATTRIBUTES.waits]?.stringValue).toBe('1');
  });

  it("hands each of a linked customer's earlier orders to a message of its own, where it is credited once", async () => {
    const { queue, handle } = withQueue();
    const customer = { externalKey: 'shopify', externalId: 'linked-later' };
    const orders = [purchase({ customer }), purchase({ customer })];
    for (const order of orders) await handle(sqsEvent(sentAgo(sqsRecord(order, 'shopify:shopify:linked-later'), 0)));
    expect(await h.ledger.getOrder(orders[0]!)).toMatchObject({ outcome: 'customer_not_found' });
    const member = (await h.api.registerMember({ rank: 'gold', external_ids: { shopify: 'linked-later' } })).id;
    const linked = linkedEvent({
      source: 'shopify',
      externalKey: 'shopify',
      customerId: 'linked-later',
      memberId: member,
      retroCreditDays: 30,
      nowMs: h.clock(),
    });
    // A crash among the orders would now cost the link a receive: each order is its own message instead.
    expect((await handle(sqsEvent(sentAgo(sqsRecord(linked, 'shopify:shopify:linked-later'), 0)))).batchItemFailures).toEqual([]);
    const copies = await held(queue);
    expect(copies.map((c) => (JSON.parse(c.body) as { orderId: string; customerLinked?: boolean }).orderId).sort()).toEqual(
      orders.map((o) => o.orderId).sort(),
    );
    expect(new Set(copies.map((c) => c.attributes.MessageGroupId)).size).toBe(2);
    expect(await h.calls(CALCULATION)).toBe(0);
    for (const copy of copies) expect((await handle(sqsEvent(copy))).batchItemFailures).toEqual([]);
    // And once only: a copy delivered again adds nothing.
    await handle(sqsEvent(copies[0]!));
    for (const order of orders) {
      expect(await h.ledger.getOrder(order)).toMatchObject({ state: 'done', outcome: 'credited', customerId: member });
      expect(await h.ledger.getOrder(order)).not.toHaveProperty('unlinkedCustomer');
    }
    expect((await h.api.getMember(member)).point).toBe(100);
  });

  it('acknowledges a credited purchase whose waiting refund failed, and gives the refund a message of its own', async () => {
    const { queue, handle } = withQueue();
    const sale = purchase();
    const early = refund(sale, 'r1', 400);
    // The refund comes first and waits for its purchase; the purchase then runs it, and its debit fails.
    await handle(sqsEvent(sentAgo(sqsRecord(early, 'shopify:order:r'), 0)));
    await h.emulator.addFault({ method: 'POST', path: '/points$', fault: 'reset_before', times: 1 });
    const record = sentAgo(sqsRecord(sale, 'shopify:shopify:cust-gold'), 0);
    expect((await handle(sqsEvent(record))).batchItemFailures).toEqual([]);
    expect(await h.ledger.getOrder(sale)).toMatchObject({ outcome: 'credited' });
    const copies = (await held(queue)).map((r) => JSON.parse(r.body) as { eventId: string });
    expect(copies.map((c) => c.eventId)).toContain(early.eventId);
    expect(await h.calls(GRANT)).toBe(1);
  });

  /** A queue that cannot take the worker's sends (SQS refusing them): the follow-ups must not be lost. */
  const refusingQueue = () => {
    const handle = makeHandler(
      depsFromEnv(env(), {
        ...asGranted(),
        clock: h.clock,
        visibility,
        queue: { send: () => Promise.reject(new Error('SendMessage refused')) },
        random: () => 0,
        logger: quiet,
        metrics,
      }),
    );
    return { handle };
  };

  it('retries a credited purchase whose failed waiting refund could not be set aside, and debits the refund on its redelivery', async () => {
    const { handle } = refusingQueue();
    const sale = purchase();
    const early = refund(sale, 'r1', 400);
    await handle(sqsEvent(sentAgo(sqsRecord(early, 'shopify:order:r'), 0)));
    await h.emulator.addFault({ method: 'POST', path: '/points$', fault: 'reset_before', times: 1 });
    const record = sentAgo(sqsRecord(sale, 'shopify:shopify:cust-gold'), 0);
    expect((await handle(sqsEvent(record))).batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(await h.ledger.getOrder(sale)).toMatchObject({ outcome: 'credited' });
    // The reset proved nothing: the debit is in doubt until the horizon, then searched and sent once.
    h.passHorizon();
    expect((await handle(sqsEvent(sentAgo(record, 0, 2)))).batchItemFailures).toEqual([]);
    expect(await h.ledger.getRefund({ ...sale, refundId: 'r1' })).toMatchObject({ outcome: 'debited' });
    // The debit cut before the service ran it, then the one of the redelivery: none twice.
    expect(await h.calls(GRANT)).toBe(2);
  });

  it("credits a linked customer's earlier orders in the link's own message when they cannot be handed over", async () => {
    const { handle } = refusingQueue();
    const customer = { externalKey: 'shopify', externalId: 'linked-inline' };
    const orders = [purchase({ customer }), purchase({ customer })];
    for (const order of orders) await handle(sqsEvent(sentAgo(sqsRecord(order, 'shopify:shopify:linked-inline'), 0)));
    const member = (await h.api.registerMember({ rank: 'gold', external_ids: { shopify: 'linked-inline' } })).id;
    const linked = linkedEvent({
      source: 'shopify',
      externalKey: 'shopify',
      customerId: 'linked-inline',
      memberId: member,
      retroCreditDays: 30,
      nowMs: h.clock(),
    });
    expect((await handle(sqsEvent(sentAgo(sqsRecord(linked, 'shopify:shopify:linked-inline'), 0)))).batchItemFailures).toEqual([]);
    for (const order of orders) {
      expect(await h.ledger.getOrder(order)).toMatchObject({ state: 'done', outcome: 'credited', customerId: member });
      expect(await h.ledger.getOrder(order)).not.toHaveProperty('unlinkedCustomer');
    }
    expect((await h.api.getMember(member)).point).toBe(100);
  });
});

describe('process-events handler: the breaker half-opens with a read of its own', () => {
  it("closes on its probe read, so a one-off fault on the first event's debit does not keep it open for everyone", async () => {
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const metrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };
    const visibility: MessageVisibility = { changeVisibility: async () => undefined };
    const breaker = createCircuitBreaker({ openMs: 30_000, now: h.clock });
    const handle = makeHandler(
      depsFromEnv(env(), { ...asGranted(), clock: h.clock, breaker, visibility, random: () => 0, logger: quiet, metrics }),
    );
    const sale = purchase();
    await handle(sqsEvent(sentAgo(sqsRecord(sale, 'shopify:sale'), 0)));
    expect(await h.ledger.getOrder(sale)).toMatchObject({ outcome: 'credited' });
    // The service fails until the breaker opens, then is back; one request of the next event still meets a 500.
    await h.emulator.addFault({ path: '^/api/ext/', fault: 'error_500', times: 1000 });
    for (let i = 0; i < 5 && !breaker.isOpen(); i += 1) await handle(sqsEvent(sentAgo(sqsRecord(purchase(), `open-${i}`), 0)));
    expect(breaker.isOpen()).toBe(true);
    await h.emulator.clearFaults();
    h.clock.advance(breaker.remainingMs());
    await h.emulator.addFault({ method: 'POST', path: '/points$', fault: 'error_500', times: 1 });
    const lookups = await h.calls(LOOKUP);
    const result = await handle(sqsEvent(sentAgo(sqsRecord(refund(sale, 'r1', 400), 'shopify:sale'), 0)));
    // The refund's debit failed on its own (retried later); the probe's read found the service up.
    expect(result.batchItemFailures).toHaveLength(1);
    expect(await h.calls(LOOKUP)).toBe(lookups + 1);
    expect(breaker.isOpen()).toBe(false);
    expect(breaker.admit()).toBe('pass');
  });
});

describe('process-events handler: an outage stops the pulling', () => {
  it('pauses pulling once the Open API has failed enough for the breaker to open, and not before', async () => {
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const metrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };
    const queue = createLocalQueue({ clock: { ...systemClock, now: h.clock } });
    const handle = makeHandler(
      depsFromEnv(env(), { ...asGranted(), clock: h.clock, queue, pull: queue, random: () => 0, logger: quiet, metrics }),
    );
    await h.emulator.addFault({ path: '^/api/ext/', fault: 'error_500', times: 1000 });
    const one = () => sqsEvent(sentAgo(sqsRecord(purchase(), `g-${messages}`), 0));
    await handle(one());
    expect(await queue.isPaused()).toBe(false);
    for (let i = 0; i < 5 && !(await queue.isPaused()); i += 1) await handle(one());
    expect(await queue.isPaused()).toBe(true);
    await queue.close();
  });
});

describe('process-events handler: a call the shared budget refuses waits for its minute', () => {
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  /** The worker drawing from the deployment's one budget in the ledger table (the real clock: its minutes). */
  const budgetEnv = () => ({ ...env(), UPSTREAM_BUDGET_TABLE: h.dynamo.tableName });
  /** Every class's share of the lookup spent in this minute and the next two, as if other containers took it. */
  const spendLookups = async () => {
    const store = ledgerBudgetStore(h.dynamo);
    const minute = Math.floor(Date.now() / 60_000);
    for (const m of [minute, minute + 1, minute + 2])
      await store.lease(LOOKUP, m, UPSTREAM_CEILING_PER_MINUTE, UPSTREAM_CEILING_PER_MINUTE);
  };

  it('sets an event aside to the minute a slot is expected in, sending nothing and spending no receive', async () => {
    await spendLookups();
    const queue = createLocalQueue({ clock: { ...systemClock, now: h.clock } });
    const added: number[] = [];
    const metrics = {
      addMetric: (name: string) => void (name === 'BudgetDeferrals' && added.push(1)),
      publishStoredMetrics: () => undefined,
    };
    const handle = makeHandler(
      depsFromEnv(budgetEnv(), { ...asGranted(), clock: h.clock, queue, random: () => 0, logger: quiet, metrics }),
    );
    const sale = purchase();
    const before = Date.now();
    const result = await handle(
      sqsEvent(sentAgo(sqsRecord(sale, 'shopify:shopify:cust-gold'), 0, 4)),
      lambdaContext('process-events', 10_000),
    );
    const after = Date.now();
    // Acknowledged (no failed receive towards the DLQ): it waits as a copy of its own.
    expect(result.batchItemFailures).toEqual([]);
    expect(await h.calls(LOOKUP)).toBe(0);
    const records: SQSRecord[] = [];
    queue.start(async (event) => {
      records.push(...event.Records);
      return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
    });
    await queue.settled();
    await queue.close();
    const seconds = (Number(records[0]?.messageAttributes[ASIDE_ATTRIBUTES.wakeAt]?.stringValue) - h.clock()) / 1000;
    // Not the backoff of a fourth receive (16 s) nor its first step (2 s): the start of a minute (random 0: no spread).
    const due = after + seconds * 1000;
    expect(Math.floor(due / 60_000) * 60_000).toBeGreaterThan(before + seconds * 1000 - 1_000);
    expect(seconds).toBeGreaterThan(5);
    expect(added).toEqual([1]);
  });

  it('neither counts the refusals as upstream errors nor lets them open the breaker', async () => {
    await spendLookups();
    const breaker = createCircuitBreaker({ openMs: 30_000, now: h.clock });
    const names: string[] = [];
    const metrics = { addMetric: (name: string) => void names.push(name), publishStoredMetrics: () => undefined };
    const visibility: MessageVisibility = { changeVisibility: async () => undefined };
    const handle = makeHandler(
      depsFromEnv(budgetEnv(), { ...asGranted(), clock: h.clock, breaker, visibility, random: () => 0, logger: quiet, metrics }),
    );
    for (let i = 0; i < 8; i++) {
      await handle(sqsEvent(sentAgo(sqsRecord(purchase(), `budget-${i}`), 0)), lambdaContext('process-events', 10_000));
    }
    expect(breaker.isOpen()).toBe(false);
    expect(names.filter((n) => n === 'BudgetDeferrals')).toHaveLength(8);
    expect(names).not.toContain('UpstreamErrors');
  });
});

describe('process-events configuration', () => {
  it('refuses to start without the ledger table name', () => {
    const { LEDGER_TABLE: _omitted, ...rest } = env();
    expect(() => depsFromEnv(rest)).toThrow(/LEDGER_TABLE/);
  });

  it('names the variable of an invalid setting', () => {
    expect(() => depsFromEnv({ ...env(), INSUFFICIENT_POINTS_POLICY: 'forgive' })).toThrow(/INSUFFICIENT_POINTS_POLICY/);
    expect(() => depsFromEnv({ ...env(), LEASE_SECONDS: 'soon' })).toThrow(/LEASE_SECONDS/);
  });
});

describe('process-events handler: the invocation time budget', () => {
  it('does not start an event when the invocation has too little time left, and returns it as a retry', async () => {
    const event = purchase();
    const record = sqsRecord(event, 'shopify:cust-gold');
    const result = await handler()(sqsEvent(record), lambdaContext('process-events', 1_500));
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(await h.ledger.getOrder(event)).toBeUndefined();
    expect(await h.calls('GET /api/ext/users/external_id/{external_key}/{external_id}')).toBe(0);
  });

  it('ends a slow points call before the Lambda timeout, recording the outcome as unknown and retried', async () => {
    // The emulator runs the calculation, then holds the answer back longer than the invocation lasts.
    await h.emulator.addFault({ method: 'POST', path: '/points/calculation$', fault: 'delay', times: 1, delay_ms: 8_000 });
    const event = purchase();
    const record = sqsRecord(event, 'shopify:cust-gold');
    const started = Date.now();
    const result = await handler()(sqsEvent(record), lambdaContext('process-events', 5_000));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(await h.ledger.getOrder(event)).toMatchObject({ state: 'pending', needsReconcile: true });
  });
});
