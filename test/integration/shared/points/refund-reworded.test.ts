import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessingSettings } from '../../../../shared/config/processing-settings.js';
import { createOpenApiClient, MESSAGES, type OpenApiClient, staticCredentials } from '../../../../shared/openapi/index.js';
import { createProcessor } from '../../../../shared/points/index.js';
import { type RewordingProxy, startRewordingProxy } from '../../../support/rewording-proxy.js';
import { CLIENT_ID, LEASE_SECONDS, purchase, REFUND_WAIT_SECONDS, refund, useHarness } from './harness.js';

/**
 * The membership service may word its errors differently from the emulator: the spec fixes only the
 * shape. Here a rewording proxy (test/support/rewording-proxy.ts) stands in front of the emulator and
 * changes the answers; the bridge must still recognise insufficient points by its shape, and must
 * park, not dead-letter, a refusal the spec does not describe.
 */
const h = useHarness();
const GOLD = 'member-gold';
const REWORDED = '保有ポイントが不足しているため減算できません。';

describe('Open API errors worded differently from the emulator', () => {
  let proxy: RewordingProxy;
  let api: OpenApiClient;
  beforeAll(async () => {
    proxy = await startRewordingProxy(h.emulator.url);
    api = createOpenApiClient({
      credentials: staticCredentials({ baseUrl: proxy.url, clientId: CLIENT_ID, clientSecret: 'test-secret' }),
      readRetries: 0,
    });
  });
  afterAll(async () => {
    await api?.close();
    await proxy?.close();
  });
  const processor = () =>
    createProcessor({
      ledger: h.ledger,
      openapi: api,
      clock: h.clock,
      settings: ProcessingSettings.parse({ leaseSeconds: LEASE_SECONDS, refundWaitSeconds: REFUND_WAIT_SECONDS }),
    });
  const creditedPurchase = async () => {
    const p = purchase({ eligibleAmount: 999 });
    expect(await processor().process(p)).toMatchObject({ kind: 'credited' });
    return p;
  };

  it('clamps a refund the customer no longer holds points for, though the service words the refusal its own way', async () => {
    const rewordings: string[] = [];
    proxy.setRewrite(({ status, body }) => {
      if (status !== 400 || !body.includes(MESSAGES.insufficientPoints)) return undefined;
      rewordings.push(body);
      return { status, body: JSON.stringify({ status: false, errors: { point: [REWORDED] } }) };
    });
    const p = await creditedPurchase();
    await h.api.grantPoints(GOLD, { point: -40, remarks: 'spent in the shop' });
    const outcome = await processor().process(refund(p, 'r1', 999));
    expect(rewordings).toHaveLength(1);
    expect(outcome).toMatchObject({ kind: 'insufficient_points', policy: 'clamp', points: 9, shortfall: 40, action: 'ack' });
    expect(await h.balance(GOLD)).toBe(0);
  });

  it('parks, records and acknowledges a purchase the service refuses with a status the spec never gives', async () => {
    proxy.setRewrite(undefined);
    proxy.setRefusal(({ method, path }) =>
      method === 'POST' && path.endsWith('/points/calculation')
        ? { status: 403, body: JSON.stringify({ status: false, errors: 'Forbidden by the gateway' }) }
        : undefined,
    );
    const p = purchase({ eligibleAmount: 1000 });
    const outcome = await processor().process(p);
    expect(outcome).toMatchObject({ kind: 'upstream_rejected', action: 'ack', errorKind: 'unrecognised' });
    expect(await h.ledger.getOrder(p)).toMatchObject({ state: 'done', outcome: 'upstream_rejected' });
    expect(await h.balance(GOLD)).toBe(0);
  });
});
