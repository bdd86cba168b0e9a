import { beforeAll, beforeEach } from 'vitest';
import type { ProcessingSettings } from '../../shared/config/index.js';
import type { RefundEvent } from '../../shared/events/index.js';
import { createTillMirrors, createTillReturns, type TillMirrors, type TillReturns } from '../../shared/ledger/index.js';
import type { Checkpoint, Processor } from '../../shared/points/index.js';
import { SENDER_RESOLUTIONS, withSenderResolution } from '../../shared/sources/resolution.entry.js';
import { dueEarnMirror, type SmaregiClient, type TillMirrorDeps } from '../../shared/sources/smaregi/index.js';
import { smaregiTillTransaction } from '../../kit/smaregi.js';
import { type Harness, IN_DOUBT_SECONDS } from '../integration/shared/points/harness.js';
import { ALICE, type Harness as RedemptionHarness } from '../integration/shared/redemption/harness.js';
import { useSmaregiStandIn } from './smaregi.js';

/**
 * Set-ups of the Smaregi `tillPoints: membership` tests (the till's point record mirrors the membership
 * balance): the stand-in over HTTP with the member's till customer, and the processor, mirror steps and
 * due tick built on the test's harness as the worker builds them.
 */

type StandIn = ReturnType<typeof useSmaregiStandIn>;

/** The processor's Smaregi parts: the mirror steps and the till returns (both unless said otherwise). */
export interface TillProcessorOptions {
  checkpoint?: Checkpoint | undefined;
  client?: SmaregiClient | undefined;
  mirrors?: boolean;
  returns?: boolean;
}

export interface TillMember {
  readonly till: StandIn;
  steps(): TillMirrors;
  tillReturns(): TillReturns;
  /** The harness's processor (with the file's settings) resolving Smaregi transactions on the stand-in. */
  processor(options?: TillProcessorOptions): Processor;
  /** The mirror's deps as the worker's due tick gets them (the stand-in's client unless `client`). */
  mirrorDeps(client?: TillMirrorDeps['smaregi']): TillMirrorDeps;
  /** The due tick as the worker runs it under tillPoints membership. */
  tick(): ReturnType<Processor['creditDueEarns']>;
  /** Puts a sale (or with `returned` a plain return) of `quantity` × `productId` at ¥11,000 at the till, for `cust-gold`; an edit keeps its time. */
  ringUp(id: string, productId: string, quantity: number, returned?: boolean): void;
  /** A refund of half a ¥22,000 sale (¥10,000 of its ¥20,000 earning amount), as a return naming the sale queues it. */
  halfBack(orderId: string, refundId: string): RefundEvent;
  /** The till record's points of customer 1. */
  point(): number;
}

/**
 * The gold member (5 %) as the till's customer 1, code `cust-gold`, holding 100,000 points; `settings`
 * go to every processor the fixture builds (a campaign, say).
 */
export function useTillMember(h: Harness, settings: Partial<ProcessingSettings> = {}): TillMember {
  const till = useSmaregiStandIn();
  beforeAll(() => {
    till.standIn.putCustomer({ customerId: '1', customerCode: 'cust-gold', point: '100000' } as never);
  });
  const steps = () => createTillMirrors({ client: h.dynamo.documentClient, tableName: h.dynamo.tableName, clock: h.clock });
  const tillReturns = () => createTillReturns({ client: h.dynamo.documentClient, tableName: h.dynamo.tableName, clock: h.clock });
  const processor = ({ checkpoint, client, mirrors = true, returns = true }: TillProcessorOptions = {}) =>
    withSenderResolution(
      h.processor({ ...(Object.keys(settings).length > 0 ? { settings } : {}), ...(checkpoint ? { checkpoint } : {}) }),
      { resolutions: SENDER_RESOLUTIONS, clients: { smaregi: () => client ?? till.client } },
      {
        ledger: h.ledger,
        openapi: h.api,
        // As the worker passes them (shared/worker/processor.ts): the processor's campaigns, none as [].
        campaigns: settings.campaigns ?? [],
        ...(mirrors ? { tillMirrors: steps(), inDoubtSeconds: IN_DOUBT_SECONDS } : {}),
        ...(returns ? { tillReturns: tillReturns() } : {}),
      },
    );
  const mirrorDeps = (client: TillMirrorDeps['smaregi'] = till.client): TillMirrorDeps => ({
    source: 'smaregi',
    externalKey: 'shopify',
    memberLookup: 'external_id',
    customerField: 'customerCode',
    openapi: h.api,
    smaregi: client,
    steps: steps(),
    inDoubtSeconds: IN_DOUBT_SECONDS,
  });
  const rungAt = new Map<string, string>();
  return {
    till,
    steps,
    tillReturns,
    processor,
    mirrorDeps,
    tick: () => processor().creditDueEarns(undefined, dueEarnMirror(mirrorDeps(), h.ledger)),
    ringUp(id, productId, quantity, returned = false) {
      const at = rungAt.get(id) ?? new Date(h.clock()).toISOString();
      rungAt.set(id, at);
      till.standIn.putTransaction({
        ...smaregiTillTransaction(id, { productId, quantity, at }, returned),
        customerCode: 'cust-gold',
      } as never);
    },
    halfBack: (orderId, refundId) => ({
      type: 'refund',
      eventId: `smaregi:refund:${orderId}:${refundId}`,
      source: 'smaregi',
      orderId,
      refundId,
      customer: null,
      currency: 'JPY',
      occurredAt: new Date(h.clock()).toISOString(),
      pointTitle: `Refund ${orderId}`,
      test: false,
      delivery: { id: refundId, topic: 'ops/returns' },
      refundAmount: 10_000,
      refundExact: '10000',
      refundsRemainder: false,
    }),
    point: () => Number(till.standIn.customerPoint('1')),
  };
}

export interface WebLegTill {
  readonly till: StandIn;
  /** The web legs' mirror steps, made afresh before each test. */
  readonly steps: TillMirrors;
  /** The mirror's deps for a web leg (Alice's `pos_card` is the till's code `C-0001`); `over` replaces any. */
  mirrorDeps(over?: Partial<TillMirrorDeps>): TillMirrorDeps;
  /** The till record's points of customer 1, as the stand-in answers them. */
  tillPoint(): string | undefined;
}

/**
 * The web legs' till (redemption harness): Alice carries `pos_card` `C-0001`, the till's customer 1
 * holding 1,000 points, before each test.
 */
export function useWebLegTill(harness: () => RedemptionHarness): WebLegTill {
  const till = useSmaregiStandIn();
  let steps: TillMirrors | undefined;
  beforeEach(async () => {
    const h = harness();
    await h.openapi.updateMember(ALICE, { external_ids: { shopify: '1001', pos_card: 'C-0001' } });
    till.standIn.putCustomer({ customerId: '1', customerCode: 'C-0001', point: '1000' } as never);
    steps = createTillMirrors({ client: h.dynamo.documentClient, tableName: h.dynamo.tableName, clock: h.clock });
  });
  const current = () => {
    if (!steps) throw new Error('the web legs’ till is made before each test (read it in a test)');
    return steps;
  };
  return {
    till,
    get steps() {
      return current();
    },
    mirrorDeps: (over = {}) => ({
      source: 'smaregi',
      // The source's external key (a setting): the harness's membership client configures pos_card.
      externalKey: 'pos_card',
      openapi: harness().openapi,
      smaregi: till.client,
      steps: current(),
      ...over,
    }),
    tillPoint: () => till.standIn.customerPoint('1'),
  };
}
