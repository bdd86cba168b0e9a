import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { depsFromEnv, makeHandler } from '../../../functions/process-events.js';
import { createLocalQueue } from '../../../local/queue/index.js';
import { systemClock } from '../../../local/queue/clock.js';
import { openApiProbe, resumeWhenUp } from '../../../shared/consumer/index.js';
import type { PointsEvent } from '../../../shared/events/index.js';
import { ASIDE_ATTRIBUTES } from '../../../shared/queue/index.js';
import { ProcessingSettings } from '../../../shared/config/processing-settings.js';
import { createOpenApiClient, staticCredentials } from '../../../shared/openapi/index.js';
import { createProcessor, purchaseMarker } from '../../../shared/points/index.js';
import { startRewordingProxy } from '../../support/rewording-proxy.js';
import { CLIENT_ID, GRANT, IN_DOUBT_SECONDS, LOOKUP, purchase, useHarness, workerEnv } from '../shared/points/harness.js';
import { sqsRecord as recordOf, sqsEvent } from '../../support/sqs-record.js';

/**
 * What a gateway, WAF or maintenance page in front of the membership service answers (the emulator's
 * `status` fault), through the real worker, client, emulator and ledger (dynalite):
 * shared/openapi/README.md, "Answers the spec does not give".
 */
const h = useHarness();
const CALC = 'POST /api/ext/users/{id}/points/calculation';
const CALC_PATH = '/points/calculation$';
const MAINTENANCE_PAGE = '<!DOCTYPE html>\n<html><head><title>Maintenance</title></head><body>メンテナンス中です</body></html>';
const HTML = { 'content-type': 'text/html; charset=UTF-8' };

let messages = 0;
function sqsRecord(body: PointsEvent): SQSRecord {
  const sequence = ++messages;
  const id = `gw-${sequence}`;
  return recordOf(body, { id, groupId: `g-${id}`, sentAt: h.clock(), sequence });
}

const env = () => workerEnv(h, { LEASE_SECONDS: '60', REFUND_WAIT_SECONDS: '120' });
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const metrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };

/** The worker as deployed, with a real local FIFO queue to set waiting events aside on and to pause. */
function worker() {
  const queue = createLocalQueue({ clock: { ...systemClock, now: h.clock } });
  const handle = makeHandler(depsFromEnv(env(), { clock: h.clock, queue, pull: queue, random: () => 0, logger: quiet, metrics }));
  return { queue, handle };
}

/** What the queue holds, as SQS would hand it out (nothing deleted). */
async function held(queue: ReturnType<typeof createLocalQueue>): Promise<SQSRecord[]> {
  const records: SQSRecord[] = [];
  queue.start(async (event) => {
    records.push(...event.Records);
    return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
  });
  await queue.settled();
  await queue.close();
  return records;
}

const credited = (e: PointsEvent & { type: 'purchase' }) => h.entries('member-gold', purchaseMarker(e.source, e.orderId));

describe('a 429 is a rate limit, whatever the spec says: the worker waits, never parks', () => {
  it('waits out a short Retry-After and sends the calculation again, crediting the purchase once', async () => {
    const { queue, handle } = worker();
    await h.emulator.addFault({ method: 'POST', path: CALC_PATH, fault: 'status', status: 429, body: '', headers: { 'retry-after': '1' } });
    const event = purchase();
    expect((await handle(sqsEvent(sqsRecord(event)))).batchItemFailures).toEqual([]);
    expect(await credited(event)).toEqual([50]);
    expect(await h.calls(CALC)).toBe(2);
    expect(await h.ledger.getOrder(event)).toMatchObject({ outcome: 'credited' });
    await queue.close();
  });

  it('sets the event aside for a long Retry-After instead of holding the worker, then credits it once', async () => {
    const { queue, handle } = worker();
    await h.emulator.addFault({
      method: 'POST',
      path: CALC_PATH,
      fault: 'status',
      status: 429,
      body: '<html><body>Too Many Requests</body></html>',
      headers: { ...HTML, 'retry-after': '120' },
    });
    const event = purchase();
    expect((await handle(sqsEvent(sqsRecord(event)))).batchItemFailures).toEqual([]);
    expect((await h.ledger.getOrder(event))?.outcome).not.toBe('upstream_rejected');
    const [copy] = await held(queue);
    expect(copy?.messageAttributes[ASIDE_ATTRIBUTES.reason]?.stringValue).toBe('upstream_error');
    expect(Number(copy?.messageAttributes[ASIDE_ATTRIBUTES.wakeAt]?.stringValue) - h.clock()).toBeGreaterThanOrEqual(120_000);
    // Its time comes: the set-aside copy is credited, once.
    h.clock.advance(121_000);
    const again = worker();
    const due = { ...copy!, attributes: { ...copy!.attributes, ApproximateReceiveCount: '1' } };
    expect((await again.handle(sqsEvent(due))).batchItemFailures).toEqual([]);
    expect(await credited(event)).toEqual([50]);
    await again.queue.close();
  });

  it('honours a Retry-After given as an HTTP date', async () => {
    const { queue, handle } = worker();
    const at = new Date(Date.now() + 300_000).toUTCString();
    await h.emulator.addFault({ method: 'POST', path: CALC_PATH, fault: 'status', status: 429, body: '', headers: { 'retry-after': at } });
    expect((await handle(sqsEvent(sqsRecord(purchase())))).batchItemFailures).toEqual([]);
    const [copy] = await held(queue);
    const wait = Number(copy?.messageAttributes[ASIDE_ATTRIBUTES.wakeAt]?.stringValue) - h.clock();
    expect(wait).toBeGreaterThanOrEqual(290_000);
    expect(wait).toBeLessThanOrEqual(310_000);
  });

  it('does not open the breaker or pause pulling on 429s, however many', async () => {
    const { queue, handle } = worker();
    await h.emulator.addFault({
      path: '^/api/ext/',
      fault: 'status',
      status: 429,
      body: '',
      headers: { 'retry-after': '600' },
      times: 100,
    });
    for (let i = 0; i < 8; i += 1) await handle(sqsEvent(sqsRecord(purchase())));
    expect(await queue.isPaused()).toBe(false);
    await queue.close();
  });
});

describe('a 503, and a 5xx or 200 that is an HTML page, is an outage', () => {
  it('pauses pulling once HTML 503 maintenance pages open the breaker, parking nothing', async () => {
    const { queue, handle } = worker();
    await h.emulator.addFault({
      path: '^/api/ext/',
      fault: 'status',
      status: 503,
      body: MAINTENANCE_PAGE,
      headers: { ...HTML, 'retry-after': '7200' },
      times: 1000,
    });
    const events = Array.from({ length: 6 }, () => purchase());
    for (const e of events) if (!(await queue.isPaused())) await handle(sqsEvent(sqsRecord(e)));
    expect(await queue.isPaused()).toBe(true);
    for (const e of events) expect((await h.ledger.getOrder(e))?.outcome).not.toBe('upstream_rejected');
    await queue.close();
  });

  it('treats a 502 page on the calculation as an unknown outcome, reconciled and credited once', async () => {
    const { queue, handle } = worker();
    await h.emulator.addFault({ method: 'POST', path: CALC_PATH, fault: 'status', status: 502, body: MAINTENANCE_PAGE, headers: HTML });
    const event = purchase();
    await handle(sqsEvent(sqsRecord(event)));
    expect(await h.ledger.getOrder(event)).toMatchObject({ needsReconcile: true });
    h.passHorizon();
    await handle(sqsEvent(sqsRecord(event)));
    expect(await credited(event)).toEqual([50]);
    expect(await h.calls(CALC)).toBe(2);
    await queue.close();
  });

  it('treats a 200 that is an HTML page as an outage whose outcome is unknown, never as a success', async () => {
    // The emulator's status fault answers 4xx/5xx only (contract): a 200 page comes from a proxy in front.
    const proxy = await startRewordingProxy(h.emulator.url);
    const api = createOpenApiClient({
      credentials: staticCredentials({ baseUrl: proxy.url, clientId: CLIENT_ID, clientSecret: 'test-secret' }),
      readRetries: 0,
    });
    try {
      proxy.setRefusal(({ method, path }) =>
        method === 'POST' && path.endsWith('/points/calculation') ? { status: 200, body: MAINTENANCE_PAGE } : undefined,
      );
      const processor = createProcessor({
        ledger: h.ledger,
        openapi: api,
        clock: h.clock,
        settings: ProcessingSettings.parse({ leaseSeconds: 60, inDoubtSeconds: IN_DOUBT_SECONDS }),
      });
      const event = purchase();
      expect(await processor.process(event)).toMatchObject({ kind: 'outcome_unknown', errorKind: 'server', action: 'retry' });
      expect(await h.ledger.getOrder(event)).toMatchObject({ needsReconcile: true });
      proxy.setRefusal(undefined);
      h.passHorizon();
      expect(await processor.process(event)).toMatchObject({ kind: 'credited' });
      expect(await credited(event)).toEqual([50]);
    } finally {
      await api.close();
      await proxy.close();
    }
  });

  it('keeps pulling paused while the probe meets HTML 503 pages, and resumes on a 429 (the service is there)', async () => {
    const queue = createLocalQueue({ clock: systemClock });
    // A client of its own: the 429 holds back every later call of the client that met it.
    const api = createOpenApiClient({
      credentials: staticCredentials({ baseUrl: h.emulator.url, clientId: CLIENT_ID, clientSecret: 'test-secret' }),
      readRetries: 0,
    });
    const run = () =>
      resumeWhenUp({
        pull: queue,
        probe: openApiProbe(api, 'shopify'),
        now: Date.now,
        sleep: async () => undefined,
        intervalMs: 1_000,
        untilMs: Date.now(),
      });
    await queue.pause();
    await h.emulator.addFault({ path: '^/api/ext/', fault: 'status', status: 503, body: MAINTENANCE_PAGE, headers: HTML, times: 100 });
    expect(await run()).toBe('still_down');
    expect(await queue.isPaused()).toBe(true);
    await h.emulator.clearFaults();
    await h.emulator.addFault({
      path: '^/api/ext/',
      fault: 'status',
      status: 429,
      body: '',
      headers: { 'retry-after': '600' },
      times: 100,
    });
    expect(await run()).toBe('resumed');
    await queue.close();
    await api.close();
  });
});

describe('a 403 parks at once as upstream_rejected, whatever its body', () => {
  it.each([
    ['an HTML page', '<html><body>Request blocked by WAF</body></html>', HTML],
    [
      'a JSON body with a text the spec fixes',
      JSON.stringify({ status: false, errors: 'Member is not found' }),
      { 'content-type': 'application/json' },
    ],
    ['no body', '', {}],
  ])('parks the purchase on a 403 with %s, without retrying it', async (_name, body, headers) => {
    const { queue, handle } = worker();
    await h.emulator.addFault({ method: 'POST', path: CALC_PATH, fault: 'status', status: 403, body, headers, times: 5 });
    const event = purchase();
    expect((await handle(sqsEvent(sqsRecord(event)))).batchItemFailures).toEqual([]);
    expect(await h.ledger.getOrder(event)).toMatchObject({ state: 'done', outcome: 'upstream_rejected' });
    expect(await h.calls(CALC)).toBe(1);
    expect(await h.calls(GRANT)).toBe(0);
    expect(await held(queue)).toEqual([]);
  });
});

describe('the lookup answers', () => {
  it('retries a lookup met by a 503 page like any 5xx, and credits when the page is gone', async () => {
    const { queue, handle } = worker();
    await h.emulator.addFault({
      method: 'GET',
      path: '^/api/ext/users/external_id/',
      fault: 'status',
      status: 503,
      body: MAINTENANCE_PAGE,
      headers: HTML,
    });
    const event = purchase();
    await handle(sqsEvent(sqsRecord(event)));
    expect(await credited(event)).toEqual([50]);
    expect(await h.calls(LOOKUP)).toBeGreaterThanOrEqual(1);
    await queue.close();
  });
});
