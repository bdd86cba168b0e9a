import { describe, expect, it } from 'vitest';
import { customFieldToInput, parseDisplayDate, parseDisplayNumber, type OpenApiClient } from '../../../../shared/openapi/index.js';
import { ALICE, BOB, rejectionOf, useHarness, type Harness } from './emulator-harness.js';

let h: Harness;
let client: OpenApiClient;

useHarness((started) => {
  h = started;
  client = h.client();
});

describe('Open API client, every endpoint against the emulator', () => {
  it('lists members with the paging envelope and every list field passed through', async () => {
    const list = await client.listMembers({ page: 1, perPage: 1 });
    expect(list).toMatchObject({ total: 2, per_page: 1, current_page: 1, last_page: 2 });
    expect(list.members).toHaveLength(1);
    expect(list.members[0]).toMatchObject({ id: ALICE, client_id: 'shop', login_id: 'alice' });
    expect(list.members[0]).toHaveProperty('column50', null);
  });

  it('reads a member by id, with custom fields under their key names when asked', async () => {
    const m = await client.getMember(ALICE, { withColumnKey: true });
    expect(m).toMatchObject({
      id: ALICE,
      unique_id: 'M0001',
      point: 0,
      total_point: 0,
      external_ids: { shopify: '1001', pos_card: 'PC-1' },
    });
    expect(m).toHaveProperty('birthday');
  });

  it('reads a member by unique id', async () => {
    expect((await client.getMemberByUniqueId('M0002')).id).toBe(BOB);
  });

  it('reads a member by external key and external id', async () => {
    expect((await client.getMemberByExternalId('pos_card', 'PC-1')).id).toBe(ALICE);
  });

  it('registers a member and returns dates of custom fields in their stored 8- and 12-digit forms', async () => {
    const m = await client.registerMember({
      login_id: 'carol',
      password: 'pass1234',
      column01: '1990-04-01',
      column02: '2026-01-15 09:30',
      external_ids: { shopify: 'C-3' },
    });
    expect(m).toMatchObject({ login_id: 'carol', column01: '19900401', column02: '202601150930', external_ids: { shopify: 'C-3' } });
  });

  it('updates a member with a stored date converted back to its input form', async () => {
    const registered = await client.registerMember({ login_id: 'dan', column01: '1990-04-01' });
    const input = customFieldToInput('date', registered.column01 as string);
    const updated = await client.updateMember(registered.id, { column01: input, ud_id: 'device-1' });
    expect(updated).toMatchObject({ id: registered.id, column01: '19900401', ud_id: 'device-1' });
  });

  it('deletes an external id so the member is no longer found by it', async () => {
    await client.deleteExternalId(ALICE, 'pos_card');
    expect(await rejectionOf(client.getMemberByExternalId('pos_card', 'PC-1'))).toMatchObject({ kind: 'member_not_found' });
  });

  it('logs a member in and answers the detail form without external ids', async () => {
    const m = await client.login({ loginId: 'bob', password: 'pass1234' });
    expect(m).toMatchObject({ id: BOB, logined: 1, logined_at: '2026-01-15 10:00:00' });
    expect(m).not.toHaveProperty('external_ids');
  });

  it('logs a member out', async () => {
    await client.login({ loginId: 'bob', password: 'pass1234' });
    await client.logout(BOB);
    expect((await client.getMember(BOB)).logined).toBe(0);
  });

  it('resigns a member, who is then not found', async () => {
    await client.resign(BOB, { column01: '' });
    expect(await rejectionOf(client.getMember(BOB))).toMatchObject({ kind: 'member_not_found', executed: 'no' });
  });

  it('grants and deducts points, showing the balance and comma-grouped expiring points', async () => {
    await client.grantPoints(BOB, { point: 1500, title: 'welcome', expired_at: '2026-06-30' });
    const m = await client.grantPoints(BOB, { point: -200, title: 'used' });
    expect(m).toMatchObject({ id: BOB, point: 1300, total_point: 1500, point_expired_at: '2026-06-30', point_expired_point: '1,300' });
    expect(parseDisplayNumber(m.point_expired_point)).toBe(1300);
    expect(parseDisplayDate(m.point_used_at)).toBe('2026-01-15');
  });

  it('grants points calculated from an amount and the rank rate, rounded down', async () => {
    const m = await client.calculatePoints(ALICE, { amount: 1999, remarks: 'order-1' });
    expect(m).toMatchObject({ point: 99, total_point: 99 }); // gold: 5%
  });

  it('lists the point history newest first', async () => {
    await client.grantPoints(BOB, { point: 10, remarks: 'first' });
    await client.grantPoints(BOB, { point: 20, remarks: 'second' });
    const page = await client.listPoints(BOB, { perPage: 10 });
    expect(page).toMatchObject({ total: 2, per_page: 10, current_page: 1, last_page: 1 });
    expect(page.points.map((p) => [p.point, p.remarks])).toEqual([
      [20, 'second'],
      [10, 'first'],
    ]);
    expect(page.points[0]).toMatchObject({ detail: null, expired_at: '2027-01-15 23:59:59' });
  });

  it('lists point expiries nearest first, points as strings', async () => {
    await client.grantPoints(BOB, { point: 1200, expired_at: '2026-12-31' });
    await client.grantPoints(BOB, { point: 5, expired_at: '2026-03-31' });
    const page = await client.listPointExpiries(BOB);
    expect(page.points).toEqual([
      { expired_at: '2026-03-31 23:59:59', point: '5' },
      { expired_at: '2026-12-31 23:59:59', point: '1200' },
    ]);
    expect(page.points.map((p) => parseDisplayNumber(p.point))).toEqual([5, 1200]);
  });

  it('answers an empty expiry list for a member without expiring points', async () => {
    expect(await client.listPointExpiries(BOB)).toMatchObject({ points: [], total: 0 });
  });

  it('accepts a valid handover token once', async () => {
    const token = await h.handoverToken(ALICE);
    await client.checkHandoverToken(token, ALICE);
    expect(await rejectionOf(client.checkHandoverToken(token, ALICE))).toMatchObject({ kind: 'handover_token_invalid' });
  });
});
