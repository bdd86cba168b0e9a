import { describe, expect, it } from 'vitest';
import { ProcessingSettings } from '../../../../../shared/config/index.js';
import type { QueuedEvent } from '../../../../../shared/events/index.js';
import { createLedger } from '../../../../../shared/ledger/index.js';
import { createProcessor, redemptionClawbackMarker, redemptionMarker } from '../../../../../shared/points/index.js';
import {
  createQueuedLegMirror,
  handleRedeem,
  type RedemptionDeps,
  sweepRedemptions,
  withRedemptionUsage,
} from '../../../../../shared/redemption/index.js';
import { configureSource } from '../../../../../shared/sources/registry.js';
import { ShopifySettings, shopifySource } from '../../../../../shared/sources/shopify/webhook.js';
import { createLegMirror, type LegMirror } from '../../../../../shared/sources/smaregi/index.js';
import { shopifyHeaders } from '../../../../../kit/fixture-webhooks.js';
import { shopifyOrderWebhook } from '../../../../../kit/webhooks/index.js';
import { RecordingQueue } from '../../../../support/recording-queue.js';
import { useWebLegTill } from '../../../../support/smaregi-membership.js';
import { ALICE, asJson, type Harness, withRedemptionHarness } from '../../redemption/harness.js';

/**
 * Every web leg reaches the member's Smaregi record once (issue 51, item 2), whoever finishes it: a late
 * order's claw-back, and a leg whose process died between its points call and its mirror, finished by the
 * redemption sweep. Real emulator, dynalite, Admin API and Smaregi stand-ins over HTTP.
 */
let h: Harness;
withRedemptionHarness((made) => {
  h = made;
});
const web = useWebLegTill(() => h);
const { mirrorDeps, tillPoint } = web;

const DAY = 86_400_000;
const deps = (mirror: LegMirror = createLegMirror(mirrorDeps())): RedemptionDeps => ({ ...h.deps(), tillMirror: mirror });
/** A process that dies once its points call has run, before its mirror step: the call stands, nothing mirrored. */
const dying = (): RedemptionDeps => deps({ ...createLegMirror(mirrorDeps()), ran: async () => Promise.reject(new Error('process died')) });

let n = 0;
const unique = () => `${process.pid % 100_000}${++n}${Date.now() % 100_000}`;
const shopify = configureSource(shopifySource, 'shopify', ShopifySettings.parse({}));

/** The redeem POST; a process that died answers nothing (status 0). */
async function redeem(points: number, d: RedemptionDeps): Promise<{ status: number; code: string; request: string }> {
  const request = `legs-${unique()}-abcdefgh`;
  const form = h.form('1001', `points=${points}&request=${request}`);
  const post = { method: 'POST', rawQuery: h.signed('1001'), accept: undefined, body: form } as const;
  const answer = await handleRedeem(post, { ...h.deps(), ...d }).then(asJson, () => ({ status: 0, body: {} as Record<string, unknown> }));
  return { status: answer.status, code: String(answer.body.code), request };
}

function paidOrder(code: string): QueuedEvent {
  const order = { orderId: unique(), name: '#late', customerId: '1001', subtotal: '0', tax: '0', currency: 'JPY', taxesIncluded: true };
  const w = shopifyOrderWebhook(
    'orders/paid',
    'paid',
    { ...order, discountCodes: [{ code, amount: '300' }] },
    'secret',
    `wh-${unique()}`,
    h.clock(),
  );
  const outcome = shopify.read({ rawBody: Buffer.from(w.body), headers: shopifyHeaders(w.body, 'secret', 'orders/paid') });
  if (outcome.status !== 'ok') throw new Error('the order was not read');
  return outcome.value;
}

/** The worker's processing of one delivery: the points processor, then the redemption usage step. */
async function deliver(event: QueuedEvent, d: RedemptionDeps = deps()) {
  const orders = createLedger({ client: h.dynamo.documentClient, tableName: h.tableName, clock: h.clock });
  const points = createProcessor({ ledger: orders, openapi: h.openapi, clock: h.clock, settings: ProcessingSettings.parse({}) });
  return withRedemptionUsage(points, { redemption: () => d, ledger: orders }).process(event);
}

/** A 300-point code redeemed, mirrored, unused past its end and given back (the till record at 1000 again). */
async function returnedCode(): Promise<{ code: string; request: string }> {
  const made = await redeem(300, deps());
  h.clock.advance(30 * DAY + 2 * 3600_000);
  await sweepRedemptions(deps());
  expect([made.status, tillPoint(), await h.balance(ALICE)]).toEqual([200, '1000', 1000]);
  return made;
}

describe('a late order’s claw-back on the till record', () => {
  it('takes the points off the till record once when the order is delivered twice', async () => {
    const { code, request } = await returnedCode();
    const late = paidOrder(code);
    await deliver(late);
    await deliver(late);
    const step = await web.steps.get('smaregi', redemptionClawbackMarker('shopify', '1001', request));
    expect([await h.balance(ALICE), tillPoint(), step?.state]).toEqual([700, '700', 'done']);
  });

  it('takes the points off the till record once when the worker died after the claw-back call and the order comes again', async () => {
    const { code } = await returnedCode();
    const late = paidOrder(code);
    const died = await deliver(late, dying()).then(
      () => 'acked',
      () => 'retried',
    );
    const left = [await h.balance(ALICE), tillPoint()];
    h.clock.advance(31_000);
    await deliver(late);
    await deliver(late);
    expect([died, left, await h.balance(ALICE), tillPoint()]).toEqual(['retried', [700, '1000'], 700, '700']);
  });
});

describe('a web leg whose process died before its mirror, finished by the sweep', () => {
  it('mirrors a deduction whose process died before its mirror step on the next sweep, once', async () => {
    const made = await redeem(300, dying());
    const left = [made.status, await h.balance(ALICE), tillPoint()];
    h.clock.advance(60_000);
    const first = await sweepRedemptions(deps());
    const second = await sweepRedemptions(deps());
    const step = await web.steps.get('smaregi', redemptionMarker('shopify', '1001', made.request));
    expect([left, tillPoint(), step?.state, first.mirrorsFinished, second.mirrorsOpen]).toEqual([[0, 700, '1000'], '700', 'done', 1, 0]);
  });

  it('sends the App Proxy’s step whose till_mirror message was never queued on the next sweep, once', async () => {
    const queue = new RecordingQueue();
    queue.failWith = new Error('SQS unavailable');
    const made = await redeem(300, deps(createQueuedLegMirror({ source: 'smaregi', steps: web.steps, queue })));
    const left = [made.status, tillPoint(), (await web.steps.get('smaregi', redemptionMarker('shopify', '1001', made.request)))?.state];
    h.clock.advance(60_000);
    await sweepRedemptions(deps());
    await sweepRedemptions(deps());
    expect([left, tillPoint()]).toEqual([[200, '1000', 'pending'], '700']);
  });

  it('ends a step whose points call never ran void on a sweep past the horizon, writes nothing, and lists it no more', async () => {
    await web.steps.plan({ source: 'smaregi', marker: 'm-legs-never-sent', memberId: ALICE, points: -300 });
    h.clock.advance(60_000);
    const waiting = await sweepRedemptions(deps());
    h.clock.advance(2 * DAY);
    const ended = await sweepRedemptions(deps());
    const after = await sweepRedemptions(deps());
    const state = (await web.steps.get('smaregi', 'm-legs-never-sent'))?.state;
    expect([waiting.mirrorsOpen, waiting.mirrorsFinished, ended.mirrorsFinished, after.mirrorsOpen, state, tillPoint()]).toEqual([
      1,
      0,
      1,
      0,
      'void',
      '1000',
    ]);
  });
});
