import { describe, expect, it } from 'vitest';
import { loadSources } from '../../../../../shared/sources/index.js';
import { smaregiFixture } from '../../../../../kit/smaregi.js';

const SECRET = 'a-smaregi-webhook-header-value-of-40-chars';
const sources = loadSources(JSON.stringify({ smaregi: { contractId: 'demo-contract' } }));
const source = sources.get('smaregi')!;
const body = (changes: Record<string, unknown> = {}) =>
  Buffer.from(JSON.stringify({ ...smaregiFixture('webhook-transactions-created.json'), ...changes }));
const request = (rawBody: Buffer, headers: Record<string, string> = { 'x-smaregi-webhook-token': SECRET }) => ({
  rawBody,
  headers,
  receivedAtMs: Date.parse('2026-11-25T01:00:00Z'),
});
const verify = (headers: Record<string, string>) => source.verify(request(body(), headers), { secrets: [SECRET], nowMs: 0 });

describe('the smaregi source', () => {
  it('accepts the configured header with the secret as its value', () => {
    expect(verify({ 'X-Smaregi-Webhook-Token': SECRET })).toBeNull();
  });

  it('refuses a delivery without the header as missing', () => {
    expect(verify({})?.kind).toBe('missing_signature');
  });

  it('refuses a wrong value, even one that shares the secret as a prefix', () => {
    expect(verify({ 'x-smaregi-webhook-token': `${SECRET}x` })?.kind).toBe('invalid_signature');
  });

  it('reads a custom header name from its settings', () => {
    const custom = loadSources(JSON.stringify({ smaregi: { contractId: 'demo-contract', webhookHeader: 'X-Our-Token' } })).get('smaregi')!;
    expect(custom.verify(request(body(), { 'x-our-token': SECRET }), { secrets: [SECRET], nowMs: 0 })).toBeNull();
  });

  it('refuses another contract as wrong_contract', () => {
    const read = source.readMany!(request(body({ contractId: 'another' })));
    expect(read.status === 'rejected' && read.error.kind).toBe('wrong_contract');
  });

  it('refuses a body without a contract as malformed', () => {
    const read = source.readMany!(request(Buffer.from(JSON.stringify({ event: 'pos:transactions', transactionHeadIds: ['25'] }))));
    expect(read.status === 'rejected' && read.error.kind).toBe('malformed_json');
  });

  it('ignores a pos:transactions delivery without transaction ids, or with ids that are not Smaregi ids, rather than refusing it', () => {
    const withoutIds = JSON.parse(body().toString()) as Record<string, unknown>;
    delete withoutIds.transactionHeadIds;
    const reads = [
      request(Buffer.from(JSON.stringify(withoutIds))),
      request(body({ transactionHeadIds: [25] })),
      request(body({ transactionHeadIds: [] })),
    ];
    expect(reads.map((r) => source.readMany!(r).status)).toEqual(['ignored', 'ignored', 'ignored']);
  });

  it('ignores, never refuses, an event or action it cannot read (too long, not a string)', () => {
    const reads = [body({ event: 'x'.repeat(200) }), body({ action: 'y'.repeat(200) }), body({ action: 7 })].map(
      (b) => source.readMany!(request(b)).status,
    );
    expect(reads).toEqual(['ignored', 'ignored', 'ignored']);
  });

  it('reads an action it does not know, hyphenated as in the published examples, and queues its transactions', () => {
    const read = source.readMany!(request(body({ action: 'bulk-deleted', transactionHeadIds: ['25', '26'] })));
    expect(read.status === 'ok' ? read.value.map((e) => e.delivery.topic) : read).toEqual([
      'pos:transactions/bulk-deleted',
      'pos:transactions/bulk-deleted',
    ]);
  });

  it('still refuses another contract before reading an event it does not handle', () => {
    const read = source.readMany!(request(body({ contractId: 'another', event: 'pos:products' })));
    expect(read.status === 'rejected' && read.error.kind).toBe('wrong_contract');
  });

  it('ignores events other than pos:transactions', () => {
    expect(source.readMany!(request(body({ event: 'pos:products' }))).status).toBe('ignored');
  });

  it('makes one thin event per distinct transaction id, naming the transaction for the worker to fetch', () => {
    const read = source.readMany!(request(body({ transactionHeadIds: ['25', '26', '25'] })));
    const events = read.status === 'ok' ? read.value : [];
    expect(
      events.map((e) => [
        e.type === 'customer' || e.type === 'privacy' ? undefined : e.orderId,
        e.type === 'purchase' ? e.stateFrom?.transactionHeadId : undefined,
        e.customer,
      ]),
    ).toEqual([
      ['25', '25', null],
      ['26', '26', null],
    ]);
  });

  it('gives each transaction of one delivery its own deduplication id, and an edit another than its creation', () => {
    const ids = (action: string, eventId: string) => {
      const read = source.readMany!({
        ...request(body({ action, transactionHeadIds: ['25', '26'] })),
        headers: { 'smaregi-event-id': eventId },
      });
      return read.status === 'ok' ? read.value.map((e) => e.delivery.id) : [];
    };
    const all = [...ids('created', 'e1'), ...ids('edited', 'e2')];
    expect(new Set(all).size).toBe(4);
  });

  const stateFrom = (settings: Record<string, unknown>) => {
    const configured = loadSources(JSON.stringify({ smaregi: { contractId: 'demo-contract', ...settings } })).get('smaregi')!;
    const read = configured.readMany!(request(body({ transactionHeadIds: ['25'] })));
    const event = read.status === 'ok' ? read.value[0] : undefined;
    return event?.type === 'purchase' ? event.stateFrom : undefined;
  };

  it('leaves plain returns to the operator unless the source says auto, matching within 30 days by default', () => {
    expect([stateFrom({}), stateFrom({ returns: 'auto', returnWindowDays: 14 })]).toEqual([
      expect.objectContaining({ returns: 'manual', returnWindowDays: 30 }),
      expect.objectContaining({ returns: 'auto', returnWindowDays: 14 }),
    ]);
  });

  it('refuses a return window that is not 1 to 365 whole days, and a returns mode other than manual or auto, naming the setting', () => {
    const refused = (settings: Record<string, unknown>) => {
      try {
        loadSources(JSON.stringify({ smaregi: { contractId: 'demo-contract', ...settings } }));
        return 'accepted';
      } catch (e) {
        return (e as Error).message;
      }
    };
    const messages = [{ returnWindowDays: 0 }, { returnWindowDays: 366 }, { returnWindowDays: 1.5 }, { returns: 'always' }].map(refused);
    expect(messages.map((m) => /returnWindowDays|returns/.test(m))).toEqual([true, true, true, true]);
  });
});
