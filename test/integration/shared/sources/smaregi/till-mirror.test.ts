import { describe, expect, it } from 'vitest';
import { DEFAULT_IN_DOUBT_SECONDS } from '../../../../../shared/config/index.js';
import { redemptionMarker, redemptionReturnMarker } from '../../../../../shared/points/index.js';
import { deferralFor } from '../../../../../shared/retry/index.js';
import { createQueuedLegMirror, handleRedeem } from '../../../../../shared/redemption/index.js';
import {
  createLegMirror,
  type LegMirror,
  mirrorPointChange,
  processTillMirrorEvent,
  SmaregiError,
  settleTillMirrors,
  type TillMirrorDeps,
} from '../../../../../shared/sources/smaregi/index.js';
import { smaregiTransaction } from '../../../../../kit/smaregi.js';
import { useWebLegTill } from '../../../../support/smaregi-membership.js';
import { ALICE, type Answer, asJson, type Harness, withRedemptionHarness } from '../../redemption/harness.js';
import { RecordingQueue } from '../../../../support/recording-queue.js';

/**
 * One balance on both channels (issue 51, item 2): under `tillPoints: membership` every web deduction
 * and give-back reaches the member's Smaregi record as a relative add, exactly once (its own ledger
 * step), against the real emulator, dynalite and the Smaregi stand-in over HTTP.
 */
let h: Harness;
withRedemptionHarness((made) => {
  h = made;
});

const web = useWebLegTill(() => h);
const { till, mirrorDeps, tillPoint } = web;

let requests = 0;
const newRequest = () => `mirror-${process.pid}-${++requests}-abcdef`;
const redeem = async (body: string, over: Partial<TillMirrorDeps> = {}, mirror?: LegMirror): Promise<Answer> =>
  asJson(
    await handleRedeem(
      { method: 'POST', rawQuery: h.signed('1001'), accept: undefined, body: h.form('1001', body) },
      { ...h.deps(), tillMirror: mirror ?? createLegMirror(mirrorDeps(over)) },
    ),
  );

describe('a web redemption mirrored to the member’s Smaregi record', () => {
  it('takes the redeemed points off the till record relatively, keeping a till spend made in between', async () => {
    till.standIn.putTransaction(
      smaregiTransaction('transaction-sale-tax-included.json', '61', { customerId: '1', spendPoint: '200' }) as never,
    );
    const answer = await redeem(`points=300&request=${newRequest()}`);
    expect([answer.status, tillPoint()]).toEqual([200, '500']);
  });

  it('gives the points back to the till record when Shopify refuses the code for good', async () => {
    h.shop.addFault({ field: 'discountCodeBasicCreate', fault: 'user_error', times: 1 });
    const request = newRequest();
    const answer = await redeem(`points=300&request=${request}`);
    const markers = [redemptionMarker('shopify', '1001', request), redemptionReturnMarker('shopify', '1001', request)];
    const states = await Promise.all(markers.map(async (m) => (await web.steps.get('smaregi', m))?.state));
    expect([answer.status, await h.balance(ALICE), tillPoint(), states]).toEqual([503, 1000, '1000', ['done', 'done']]);
  });

  it('mirrors a deduction whose maker died between the points call and the mirror once, when the request comes again', async () => {
    const request = newRequest();
    const started = await h.ledger.start(
      {
        source: 'shopify',
        customerId: '1001',
        memberId: ALICE,
        requestId: request,
        points: 100,
        value: '100',
        currency: 'JPY',
        code: 'PTS-MIRRORCRASH01',
        expiresAt: new Date(h.clock() + 86_400_000).toISOString(),
      },
      'dead-maker',
    );
    await h.ledger.update(started.created ? started.record.pk : '', 'dead-maker', { deductionSent: true });
    await h.openapi.grantPoints(ALICE, { point: -100, title: 'redeemed', remarks: redemptionMarker('shopify', '1001', request) });
    h.clock.advance(31_000);
    await redeem(`points=100&request=${request}`);
    await redeem(`points=100&request=${request}`);
    expect([await h.balance(ALICE), tillPoint()]).toEqual([900, '900']);
  });
});

/** Past the engine's in-doubt horizon (DEFAULT_IN_DOUBT_SECONDS): no add sent before can land any more. */
const IN_DOUBT_MS = DEFAULT_IN_DOUBT_SECONDS * 1000 + 1;

describe('a web leg’s step, written before its points call (issue 51 remainder)', () => {
  it('mirrors a deduction that landed but whose process died before its mirror when the unfinished steps are settled, once', async () => {
    const request = newRequest();
    const dying: LegMirror = { ...createLegMirror(mirrorDeps()), ran: async () => Promise.reject(new Error('process died')) };
    await redeem(`points=300&request=${request}`, {}, dying).catch(() => undefined);
    const left = [await h.balance(ALICE), tillPoint()];
    await settleTillMirrors(mirrorDeps());
    await settleTillMirrors(mirrorDeps());
    const step = await web.steps.get('smaregi', redemptionMarker('shopify', '1001', request));
    expect([left, tillPoint(), step?.state]).toEqual([[700, '1000'], '700', 'done']);
  });

  it('ends a planned step whose points call never ran void once the call can no longer land, writing nothing', async () => {
    await web.steps.plan({ source: 'smaregi', marker: 'm-never-sent', memberId: ALICE, points: -300 });
    await settleTillMirrors(mirrorDeps());
    const waiting = (await web.steps.get('smaregi', 'm-never-sent'))?.state;
    h.clock.advance(2 * 86_400_000);
    await settleTillMirrors(mirrorDeps());
    expect([waiting, (await web.steps.get('smaregi', 'm-never-sent'))?.state, tillPoint()]).toEqual(['planned', 'void', '1000']);
  });
});

describe('the App Proxy’s mirror through the worker (no Smaregi access of its own)', () => {
  it('records the step and queues a till_mirror message, leaving the till record to the worker', async () => {
    const queue = new RecordingQueue();
    const request = newRequest();
    await redeem(`points=300&request=${request}`, {}, createQueuedLegMirror({ source: 'smaregi', steps: web.steps, queue }));
    const marker = redemptionMarker('shopify', '1001', request);
    const sent = queue.events().map((e) => [e.type, e.source, e.marker]);
    expect([tillPoint(), (await web.steps.get('smaregi', marker))?.state, sent]).toEqual([
      '1000',
      'pending',
      [['till_mirror', 'smaregi', marker]],
    ]);
  });

  it('has the worker take the redeemed points off the till record once, however often the message comes', async () => {
    const queue = new RecordingQueue();
    await redeem(`points=300&request=${newRequest()}`, {}, createQueuedLegMirror({ source: 'smaregi', steps: web.steps, queue }));
    const message = queue.events()[0] as Parameters<typeof processTillMirrorEvent>[1];
    const first = await processTillMirrorEvent(mirrorDeps(), message);
    const again = await processTillMirrorEvent(mirrorDeps(), message);
    expect([first, again, tillPoint()]).toEqual([
      { kind: 'till_mirrored', action: 'ack', state: 'done' },
      { kind: 'till_mirrored', action: 'ack', state: 'done' },
      '700',
    ]);
  });

  it('leaves a step whose message was never queued to the settle, which mirrors it once', async () => {
    // The steps earlier cases left to the worker, finished first: the till record then starts at 1000.
    await settleTillMirrors(mirrorDeps());
    till.standIn.putCustomer({ customerId: '1', customerCode: 'C-0001', point: '1000' } as never);
    const queue = new RecordingQueue();
    queue.failWith = new Error('SQS unavailable');
    const answer = await redeem(
      `points=300&request=${newRequest()}`,
      {},
      createQueuedLegMirror({ source: 'smaregi', steps: web.steps, queue }),
    );
    await settleTillMirrors(mirrorDeps());
    await settleTillMirrors(mirrorDeps());
    expect([answer.status, tillPoint()]).toEqual([200, '700']);
  });
});

describe('the till mirror’s own step', () => {
  const change = (marker: string) => ({ marker, memberId: ALICE, points: -300 });

  it('finds an add whose answer was lost done by the customer’s point, and never sends it twice', async () => {
    const losing = {
      ...till.client,
      addCustomerPoint: async (id: string, delta: number) => {
        await till.client.addCustomerPoint(id, delta);
        throw new Error('answer lost');
      },
    };
    await mirrorPointChange(mirrorDeps({ smaregi: losing }), change('m-lost'));
    h.clock.advance(IN_DOUBT_MS);
    await mirrorPointChange(mirrorDeps(), change('m-lost'));
    await mirrorPointChange(mirrorDeps(), change('m-lost'));
    expect([tillPoint(), (await web.steps.get('smaregi', 'm-lost'))?.state]).toEqual(['700', 'done']);
  });

  it('never sends an add again while the attempt that sent it may still be waiting for its answer (a duplicate delivery beside it)', async () => {
    let duplicate: Promise<void> | undefined;
    const slow = {
      ...till.client,
      // The duplicate comes while this add is on its way: Smaregi has not applied it yet.
      addCustomerPoint: async (id: string, delta: number) => {
        duplicate = mirrorPointChange(mirrorDeps(), change('m-race')).then(() => undefined);
        await duplicate;
        return till.client.addCustomerPoint(id, delta);
      },
    };
    await mirrorPointChange(mirrorDeps({ smaregi: slow }), change('m-race'));
    await duplicate;
    expect([tillPoint(), (await web.steps.get('smaregi', 'm-race'))?.state]).toEqual(['700', 'done']);
  });

  it('sends an add again at the next settle when Smaregi answered 429 (rate limited: not run), never twice', async () => {
    const limited = {
      ...till.client,
      addCustomerPoint: async () => Promise.reject(new SmaregiError('unavailable', 'Smaregi API answered 429', 429)),
    };
    await mirrorPointChange(mirrorDeps({ smaregi: limited }), change('m-429'));
    await settleTillMirrors(mirrorDeps());
    await settleTillMirrors(mirrorDeps());
    expect([tillPoint(), (await web.steps.get('smaregi', 'm-429'))?.state]).toEqual(['700', 'done']);
  });

  it('sends an add again at the next settle, with no horizon to wait, when Smaregi refused our credentials (401), not the change', async () => {
    const unauthorized = {
      ...till.client,
      addCustomerPoint: async () => Promise.reject(new SmaregiError('unauthorized', 'Smaregi API answered 401', 401)),
    };
    await mirrorPointChange(mirrorDeps({ smaregi: unauthorized }), change('m-401'));
    const left = (await web.steps.get('smaregi', 'm-401'))?.state;
    await settleTillMirrors(mirrorDeps());
    expect([left, tillPoint(), (await web.steps.get('smaregi', 'm-401'))?.state]).toEqual(['pending', '700', 'done']);
  });

  it('records a conflict, and writes nothing, when the till point changed between an unfinished add and its retry', async () => {
    const dying = { ...till.client, addCustomerPoint: async () => Promise.reject(new Error('died before sending')) };
    await mirrorPointChange(mirrorDeps({ smaregi: dying }), change('m-conflict'));
    till.standIn.putTransaction(
      smaregiTransaction('transaction-sale-tax-included.json', '62', { customerId: '1', spendPoint: '50' }) as never,
    );
    h.clock.advance(IN_DOUBT_MS);
    await mirrorPointChange(mirrorDeps(), change('m-conflict'));
    expect([tillPoint(), (await web.steps.get('smaregi', 'm-conflict'))?.state]).toEqual(['950', 'conflict']);
  });

  it('finishes a step whose reads failed before anything was sent when the unfinished steps are settled, once', async () => {
    const unreadable = { ...till.client, getCustomerPoint: async () => Promise.reject(new Error('503')) };
    await mirrorPointChange(mirrorDeps({ smaregi: unreadable }), change('m-pending'));
    const left = (await web.steps.get('smaregi', 'm-pending'))?.state;
    const settled = await settleTillMirrors(mirrorDeps());
    await settleTillMirrors(mirrorDeps());
    expect([left, settled, tillPoint(), (await web.steps.get('smaregi', 'm-pending'))?.state]).toEqual(['pending', 1, '700', 'done']);
  });

  it('records a member without a Smaregi customer as skipped and writes nothing', async () => {
    await h.openapi.updateMember(ALICE, { external_ids: { shopify: '1001', pos_card: 'C-9999' } });
    await mirrorPointChange(mirrorDeps(), change('m-none'));
    expect([tillPoint(), (await web.steps.get('smaregi', 'm-none'))?.state]).toEqual(['1000', 'skipped']);
  });
});

describe('a till_mirror message whose add is in doubt (issues 50/51: the conflict window)', () => {
  const settings = { backoffBaseSeconds: 2, backoffCapSeconds: 900, retryHorizonSeconds: 86_400, leaseSeconds: 45 };
  const writeFault = (body: unknown) =>
    fetch(`${till.standIn.url}/__smaregi/write-faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const message = (marker: string) => ({
    type: 'till_mirror' as const,
    source: 'smaregi',
    marker,
    delivery: { id: `d-${marker}`, topic: 'app_proxy/till_mirror' },
  });
  const pending = (marker: string, points: number) =>
    web.steps.begin({ source: 'smaregi', marker, memberId: ALICE, points, state: 'pending' });

  it('comes back at the end of the add’s in-doubt horizon when Smaregi answered 500 after making the change, then ends done once', async () => {
    await pending('m-doubt-500', -300);
    await writeFault({ status: 500, times: 1, commit: true });
    const first = await processTillMirrorEvent(mirrorDeps(), message('m-doubt-500') as never);
    const verdict = deferralFor(first, { receive: 1, ageMs: 0, nowMs: h.clock() }, settings, () => 0);
    h.clock.advance(IN_DOUBT_MS);
    const again = await processTillMirrorEvent(mirrorDeps(), message('m-doubt-500') as never);
    expect([first.kind === 'outcome_unknown' && first.until, verdict, again, tillPoint()]).toEqual([
      h.clock() - IN_DOUBT_MS + DEFAULT_IN_DOUBT_SECONDS * 1000,
      { defer: true, seconds: DEFAULT_IN_DOUBT_SECONDS },
      { kind: 'till_mirrored', action: 'ack', state: 'done' },
      '700',
    ]);
  });

  it('sends an add that did not land once when its message comes back after the horizon', async () => {
    await pending('m-doubt-lost', -300);
    await writeFault({ status: 503, times: 1, commit: false });
    await processTillMirrorEvent(mirrorDeps(), message('m-doubt-lost') as never);
    const left = tillPoint();
    h.clock.advance(IN_DOUBT_MS);
    await processTillMirrorEvent(mirrorDeps(), message('m-doubt-lost') as never);
    await processTillMirrorEvent(mirrorDeps(), message('m-doubt-lost') as never);
    expect([left, tillPoint(), (await web.steps.get('smaregi', 'm-doubt-lost'))?.state]).toEqual(['1000', '700', 'done']);
  });

  it('is never acked while its add waits out the horizon, however often it comes, and is acked once the step is settled', async () => {
    await pending('m-doubt-early', -300);
    await writeFault({ status: 500, times: 1, commit: true });
    await processTillMirrorEvent(mirrorDeps(), message('m-doubt-early') as never);
    h.clock.advance(1_000);
    const early = await processTillMirrorEvent(mirrorDeps(), message('m-doubt-early') as never);
    h.clock.advance(IN_DOUBT_MS);
    const late = await processTillMirrorEvent(mirrorDeps(), message('m-doubt-early') as never);
    expect([early.action, early.kind, late.action, tillPoint()]).toEqual(['retry', 'outcome_unknown', 'ack', '700']);
  });

  it('ends done, not in conflict, when another mirror step of the same member finished while the add was in doubt', async () => {
    await pending('m-doubt-a', -300);
    await writeFault({ status: 500, times: 1, commit: true });
    await processTillMirrorEvent(mirrorDeps(), message('m-doubt-a') as never);
    h.clock.advance(1_000);
    await mirrorPointChange(mirrorDeps(), { marker: 'm-doubt-b', memberId: ALICE, points: 100 });
    h.clock.advance(IN_DOUBT_MS);
    const again = await processTillMirrorEvent(mirrorDeps(), message('m-doubt-a') as never);
    expect([again.kind === 'till_mirrored' && again.state, tillPoint()]).toEqual(['done', '800']);
  });

  it('still records a conflict for a change of the till point it knows nothing of', async () => {
    await pending('m-doubt-unknown', -300);
    await writeFault({ status: 500, times: 1, commit: true });
    await processTillMirrorEvent(mirrorDeps(), message('m-doubt-unknown') as never);
    // A change no transaction shows (Smaregi's back office, another app): nothing explains it.
    await till.client.addCustomerPoint('1', -50);
    h.clock.advance(IN_DOUBT_MS);
    const again = await processTillMirrorEvent(mirrorDeps(), message('m-doubt-unknown') as never);
    expect([again.kind === 'till_mirrored' && again.state, tillPoint()]).toEqual(['conflict', '650']);
  });
  /** A member's till sale spending `points`, made now by the steps' clock (a spend whose webhook we have not had yet). */
  const tillSpend = (id: string, points: number) => {
    const at = new Date(h.clock()).toISOString();
    const sale = smaregiTransaction('transaction-sale-tax-included.json', id, { customerId: '1', spendPoint: String(points) });
    till.standIn.putTransaction({ ...sale, transactionDateTime: at, updDateTime: at } as never);
  };

  it('never sends an add again when a till spend we were not told of exactly cancels it: a conflict, and the till point keeps the one add', async () => {
    await pending('m-doubt-cancel', 300);
    await writeFault({ status: 500, times: 1, commit: true });
    await processTillMirrorEvent(mirrorDeps(), message('m-doubt-cancel') as never);
    h.clock.advance(1_000);
    tillSpend('64', 300);
    h.clock.advance(IN_DOUBT_MS);
    const again = await processTillMirrorEvent(mirrorDeps(), message('m-doubt-cancel') as never);
    expect([again.kind === 'till_mirrored' && again.state, tillPoint()]).toEqual(['conflict', '1000']);
  });

  it('ends done once, not in conflict, when a till spend we were not yet told of landed beside the add (read from the customer’s transactions)', async () => {
    await pending('m-doubt-spent', -300);
    await writeFault({ status: 500, times: 1, commit: true });
    await processTillMirrorEvent(mirrorDeps(), message('m-doubt-spent') as never);
    h.clock.advance(1_000);
    tillSpend('65', 200);
    h.clock.advance(IN_DOUBT_MS);
    const again = await processTillMirrorEvent(mirrorDeps(), message('m-doubt-spent') as never);
    expect([again.kind === 'till_mirrored' && again.state, tillPoint()]).toEqual(['done', '500']);
  });

  /** The stand-in's offline till: sales posted from now on reach Smaregi's server `ms` (real time) later. */
  const uploadDelay = (ms: number) =>
    fetch(`${till.standIn.url}/__smaregi/upload-delay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ms }),
    });
  const uploaded = (point: string) => expect.poll(tillPoint, { timeout: 10_000, interval: 50 }).toBe(point);

  it('ends done once when an offline till’s sale spending what a landed add gave is uploaded only after the settle: the till point is never doubled', async () => {
    await pending('m-upload-after', 300);
    await writeFault({ status: 500, times: 1, commit: true });
    await processTillMirrorEvent(mirrorDeps(), message('m-upload-after') as never);
    h.clock.advance(1_000);
    await uploadDelay(3_000);
    tillSpend('66', 300); // made at the till now, on Smaregi's server 3 s later
    await uploadDelay(0);
    h.clock.advance(IN_DOUBT_MS);
    const settled = await processTillMirrorEvent(mirrorDeps(), message('m-upload-after') as never);
    const atSettle = tillPoint();
    await uploaded('1000');
    const again = await processTillMirrorEvent(mirrorDeps(), message('m-upload-after') as never);
    expect([settled.kind === 'till_mirrored' && settled.state, atSettle, again.action, tillPoint()]).toEqual([
      'done',
      '1300',
      'ack',
      '1000',
    ]);
  });

  it('never sends a landed add again when an offline till’s sale made before the add’s read, spending as much, is uploaded while the add is in doubt', async () => {
    // The till's times (its sale, its last change) are before the add's read; the server stamps its own
    // receipt (transactionDateTime) when the upload comes, inside the add's window.
    const madeAt = new Date(h.clock() - 5 * 60_000).toISOString();
    const receivedAt = new Date(h.clock() + 1_000).toISOString();
    const sale = smaregiTransaction('transaction-sale-tax-included.json', '67', { customerId: '1', spendPoint: '300' });
    await uploadDelay(1_500);
    till.standIn.putTransaction({ ...sale, terminalTranDateTime: madeAt, updDateTime: madeAt, transactionDateTime: receivedAt } as never);
    await uploadDelay(0);
    await pending('m-upload-during', 300);
    await writeFault({ status: 500, times: 1, commit: true });
    await processTillMirrorEvent(mirrorDeps(), message('m-upload-during') as never);
    const afterAdd = tillPoint(); // the add landed, the sale not uploaded yet
    await uploaded('1000');
    h.clock.advance(IN_DOUBT_MS);
    const again = await processTillMirrorEvent(mirrorDeps(), message('m-upload-during') as never);
    expect([afterAdd, again.kind === 'till_mirrored' && again.state, tillPoint()]).toEqual(['1300', 'conflict', '1000']);
  });
});
