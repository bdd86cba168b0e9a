import { useSmaregiStandIn } from '../../support/smaregi.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { auditDaysFromEnv, depsFromEnv, makeHandler } from '../../../functions/audit-ledger.js';
import { ProcessingSettings } from '../../../shared/config/processing-settings.js';
import {
  createLedger,
  createLedgerTable,
  createTillMirrors,
  FUNCTION_LEDGER_KEYS,
  guardLeadingKeys,
  LEDGER_KEY_PREFIX,
} from '../../../shared/ledger/index.js';
import { createProcessor, purchaseMarker } from '../../../shared/points/index.js';
import { purchase, useHarness } from '../shared/points/harness.js';
import type { Json } from '../../support/json.js';
import { mirrorPointChange } from '../../../shared/sources/smaregi/index.js';

/** The scheduled audit's handler as deployed (built from the environment), against the emulator and dynalite. */
const h = useHarness();
let tables = 0;
let tableName: string;
let output: string[];

const env = () => ({
  LEDGER_TABLE: tableName,
  DYNAMODB_ENDPOINT: h.dynamo.endpoint,
  OPENAPI_BASE_URL: h.emulator.url,
  OPENAPI_CLIENT_ID: 'test-client',
  OPENAPI_CLIENT_SECRET: 'test-secret',
  POWERTOOLS_METRICS_NAMESPACE: 'Audit/Test',
  POWERTOOLS_SERVICE_NAME: 'bridge',
  AUDIT_DAYS: '2',
});

/**
 * The ledger as the audit's IAM grant lets it reach it: it reads any item, and writes its reversal records
 * and its budget counters only (dynamodb:LeadingKeys): a write to any other key fails the test.
 */
const asGranted = () => ({
  documentClient: guardLeadingKeys(h.dynamo.documentClient, [...FUNCTION_LEDGER_KEYS.auditWrites, LEDGER_KEY_PREFIX.budget], {
    tableName,
    readAnyKey: true,
  }),
});

beforeEach(async () => {
  // Each test its own ledger: the emulator forgets the histories between tests.
  tableName = `audit-fn-${process.pid}-${++tables}`;
  await createLedgerTable(h.dynamo.client, tableName);
  output = [];
  // Captures what the function writes: Powertools log lines and the EMF line, as CloudWatch gets them.
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      output.push(String(chunk));
      return true;
    });
  }
});
afterEach(() => vi.restoreAllMocks());

const lines = () =>
  output
    .flatMap((c) => c.split('\n'))
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, Json>);
/** The audit's own metric lines (each Open API request sent is counted on a line of its own: UpstreamCalls_<endpoint>). */
const emf = () => lines().filter((l) => '_aws' in l && !Object.keys(l).some((k) => k.startsWith('UpstreamCalls_')));

/** A purchase credited by the real processor into this test's ledger table. */
async function credit(orderId: string): Promise<void> {
  const ledger = createLedger({ client: h.dynamo.documentClient, tableName, clock: h.clock });
  const p = createProcessor({ ledger, openapi: h.api, clock: h.clock, settings: ProcessingSettings.parse({}) });
  expect((await p.process(purchase({ orderId }), { receiveCount: 1 })).kind).toBe('credited');
}

describe('audit-ledger (the scheduled audit)', () => {
  it('publishes AuditDrift 0 in the stage namespace when the books balance', async () => {
    await credit('fn-clean-1');
    const summary = await makeHandler(depsFromEnv(env(), { ...asGranted(), clock: h.clock }))();
    expect(summary).toMatchObject({ orders: 1, refunds: 0, drift: 0, duplicates: 0, reversed: 0 });
    expect(emf()).toEqual([
      expect.objectContaining({
        AuditDrift: 0,
        AuditRecords: 1,
        DuplicatesReversed: 0,
        service: 'bridge',
        _aws: expect.objectContaining({
          CloudWatchMetrics: [
            {
              Namespace: 'Audit/Test',
              Dimensions: [['service']],
              Metrics: [
                { Name: 'AuditDrift', Unit: 'Count' },
                { Name: 'AuditRecords', Unit: 'Count' },
                { Name: 'DuplicatesReversed', Unit: 'Count' },
              ],
            },
          ],
        }),
      }),
    ]);
  });

  it('counts each Open API request it sends as UpstreamCalls_<endpoint>, the figure the budget alarm reads', async () => {
    await credit('fn-counted-1');
    await makeHandler(depsFromEnv(env(), { ...asGranted(), clock: h.clock }))();
    const counted = lines().filter((l) => typeof l.UpstreamCalls_listPoints === 'number');
    expect(counted.length).toBeGreaterThan(0);
    expect(counted[0]).toMatchObject({ service: 'bridge', UpstreamCalls_listPoints: 1 });
  });

  it('publishes the drift count and the duplicates reversed, and logs each finding with its order and customer', async () => {
    await credit('fn-doubled-1');
    await h.api.grantPoints('member-gold', { point: 50, remarks: purchaseMarker('shopify', 'fn-doubled-1') });
    const summary = await makeHandler(depsFromEnv(env(), { ...asGranted(), clock: h.clock }))();
    expect(summary).toMatchObject({ drift: 1, duplicates: 1, reversed: 1 });
    expect(emf()[0]).toMatchObject({ AuditDrift: 1, DuplicatesReversed: 1 });
    expect(await h.balance('member-gold')).toBe(50);
    expect(lines()).toContainEqual(
      expect.objectContaining({
        level: 'WARN',
        message: expect.stringMatching(/^drift duplicate_credit: shopify order fn-doubled-1, customer member-gold/),
      }),
    );
  });

  it('looks back AUDIT_DAYS days: older records are not audited', async () => {
    await credit('fn-old-1');
    h.clock.advance(3 * 86_400_000);
    expect(await makeHandler(depsFromEnv(env(), { ...asGranted(), clock: h.clock }))()).toMatchObject({ orders: 0, drift: 0 });
  });

  it('refuses an AUDIT_DAYS that is not a whole number of days', () => {
    expect(auditDaysFromEnv({})).toBe(3);
    expect(() => auditDaysFromEnv({ AUDIT_DAYS: '2.5' })).toThrow('AUDIT_DAYS must be a whole number of days from 1 to 400, got "2.5"');
  });
});

describe('audit-ledger under a Smaregi source’s tillPoints membership', () => {
  const till = useSmaregiStandIn();

  it('finishes a till mirror step an attempt left unfinished, adding its points to the member’s Smaregi record once', async () => {
    till.standIn.putCustomer({ customerId: '8', customerCode: 'C-0008', point: '100' } as never);
    const steps = createTillMirrors({ client: h.dynamo.documentClient, tableName, clock: h.clock });
    // An attempt that died before it read anything: the step begun, nothing sent.
    await steps.begin({ source: 'smaregi', marker: 'lp1:shopify:redemption:x', memberId: 'member-gold', points: -30, state: 'pending' });
    await h.api.updateMember('member-gold', { external_ids: { pos_card: '8' } });
    const tillMirror = {
      source: 'smaregi',
      externalKey: 'pos_card',
      customerField: 'customerId' as const,
      openapi: h.api,
      smaregi: till.client,
      steps,
    };
    await makeHandler(depsFromEnv(env(), { ...asGranted(), clock: h.clock, tillMirror }))();
    await makeHandler(depsFromEnv(env(), { ...asGranted(), clock: h.clock, tillMirror }))();
    expect([till.standIn.customerPoint('8'), (await steps.get('smaregi', 'lp1:shopify:redemption:x'))?.state]).toEqual(['70', 'done']);
  });

  it('leaves the Smaregi record alone when it reverses a duplicated credit: the till got that credit once, by its marker', async () => {
    till.standIn.putCustomer({ customerId: '9', customerCode: 'C-0009', point: '0' } as never);
    await h.api.updateMember('member-gold', { external_ids: { pos_card: '9' } });
    const steps = createTillMirrors({ client: h.dynamo.documentClient, tableName, clock: h.clock });
    const tillMirror = {
      source: 'smaregi',
      externalKey: 'pos_card',
      customerField: 'customerId' as const,
      openapi: h.api,
      smaregi: till.client,
      steps,
    };
    await credit('fn-till-doubled-1');
    const marker = purchaseMarker('shopify', 'fn-till-doubled-1');
    const credited = (await h.api.listPoints('member-gold', { perPage: 1000 })).points.find((e) => e.remarks === marker)?.point ?? 0;
    const balance = await h.balance('member-gold');
    // The credit mirrored by its marker (its own step), then the same call landing a second time.
    await mirrorPointChange(tillMirror, { marker, memberId: 'member-gold', points: credited });
    await h.api.grantPoints('member-gold', { point: credited, remarks: marker });
    const first = await makeHandler(depsFromEnv(env(), { ...asGranted(), clock: h.clock, tillMirror }))();
    await makeHandler(depsFromEnv(env(), { ...asGranted(), clock: h.clock, tillMirror }))();
    expect([first.reversed, await h.balance('member-gold'), till.standIn.customerPoint('9')]).toEqual([1, balance, String(credited)]);
  });
});
