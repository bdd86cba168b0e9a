import { describe, expect, it } from 'vitest';
import { ALICE, BOB, fixtureConfig, NOW, structuredError, useEmulator } from './http.js';

const { emu, api, reconnect } = useEmulator();

async function useConfig(overrides: Record<string, unknown>): Promise<void> {
  await emu.reset(fixtureConfig(overrides));
  await reconnect();
}

describe('POST /api/ext/users (register)', () => {
  it('registers a customer from an empty object with a UUID, the default rank and enabled=1', async () => {
    const r = await api.post('/api/ext/users', {});
    expect(r.status).toBe(200);
    expect(r.body.member).toMatchObject({ unique_id: null, login_id: null, rank: 'regular', enabled: 1, logined: 0, pin: null });
    expect(r.body.member.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(r.body.member.created_at).toBe(NOW);
  });

  it('makes the new customer readable by id', async () => {
    const id = (await api.post('/api/ext/users', { login_id: 'dave' })).body.member.id;
    expect((await api.get(`/api/ext/users/${id}`)).body.member.login_id).toBe('dave');
  });

  it('auto-numbers the unique_id for a client with auto-numbering', async () => {
    await useConfig({ auto_numbering: true });
    const a = (await api.post('/api/ext/users', {})).body.member.unique_id;
    const b = (await api.post('/api/ext/users', {})).body.member.unique_id;
    expect(a).toMatch(/^\d{10}$/);
    expect(b).not.toBe(a);
  });

  it('assigns a pin under the designated-numbering scheme', async () => {
    await useConfig({ designated_numbering: true });
    expect((await api.post('/api/ext/users', {})).body.member.pin).toMatch(/^\d{10}$/);
  });

  it('refuses a unique_id already in use', async () => {
    const r = await api.post('/api/ext/users', { unique_id: 'U-ALICE' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ status: false, errors: ['The unique id has already been taken.'] });
  });

  it('refuses a login_id already in use', async () => {
    const r = await api.post('/api/ext/users', { login_id: 'alice' });
    expect(r.body.errors).toEqual(['The login id has already been taken.']);
  });

  it('refuses an empty unique_id, password or rank with the password-required message', async () => {
    for (const field of ['unique_id', 'password', 'rank']) {
      const r = await api.post('/api/ext/users', { [field]: '' });
      expect(r.status, field).toBe(400);
      expect(r.body.errors, field).toEqual(['The password field is required.']);
    }
  });

  it('accepts an empty login_id and stores none', async () => {
    const r = await api.post('/api/ext/users', { login_id: '' });
    expect(r.status).toBe(200);
    expect(r.body.member.login_id).toBeNull();
  });

  it('refuses a password shorter than 4 characters', async () => {
    expect((await api.post('/api/ext/users', { password: 'abc' })).body.errors).toEqual(['The password must be at least 4 characters.']);
  });

  it('refuses a unique_id with multi-byte characters', async () => {
    expect((await api.post('/api/ext/users', { unique_id: 'ユーザー' })).body.errors).toEqual([
      'The unique id may only contain single-byte characters.',
    ]);
  });

  it('refuses a unique_id longer than 255 characters', async () => {
    expect((await api.post('/api/ext/users', { unique_id: 'u'.repeat(256) })).status).toBe(400);
  });

  it('refuses logined=1 without logined_at', async () => {
    const r = await api.post('/api/ext/users', { logined: 1 });
    expect(r.body.errors).toEqual(['The logined at field is required when logined is 1.']);
  });

  it('stores logined=1 with its logined_at', async () => {
    const m = (await api.post('/api/ext/users', { logined: 1, logined_at: '2026-01-10 08:00:00' })).body.member;
    expect([m.logined, m.logined_at]).toEqual([1, '2026-01-10 08:00:00']);
  });

  it('stores enabled=0', async () => {
    expect((await api.post('/api/ext/users', { enabled: 0 })).body.member.enabled).toBe(0);
  });

  it('refuses enabled=2', async () => {
    expect((await api.post('/api/ext/users', { enabled: 2 })).body.errors).toEqual(['The enabled must be 0 or 1.']);
  });

  it('refuses a rank that the operator has not set up', async () => {
    expect((await api.post('/api/ext/users', { rank: 'platinum' })).body.errors).toEqual(['The selected rank is invalid.']);
  });

  it('refuses a rank other than the default when the admin rank feature is enabled', async () => {
    await useConfig({ rank_feature: true });
    expect((await api.post('/api/ext/users', { rank: 'gold' })).body.errors).toEqual([
      'The rank cannot be changed while the rank feature is enabled.',
    ]);
  });

  it('lists every problem of one request', async () => {
    const r = await api.post('/api/ext/users', { login_id: 'alice', password: 'x', enabled: 5 });
    expect(r.body.errors).toHaveLength(3);
  });

  it('registers nothing when validation fails', async () => {
    await api.post('/api/ext/users', { login_id: 'zed', password: 'x' });
    expect((await api.get('/api/ext/users')).body.total).toBe(2);
  });

  it('answers the physical-name fields when registered with with_column_key=true', async () => {
    const m = (await api.post('/api/ext/users', { nickname: 'Zed', with_column_key: true })).body.member;
    expect([m.column01, m.nickname]).toEqual(['Zed', 'Zed']);
  });

  it('refuses a body that is not valid JSON', async () => {
    const r = await api.call('POST', '/api/ext/users', { body: '{"login_id":' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ status: false, errors: ['The request body is not valid JSON.'] });
  });
});

describe('custom fields', () => {
  it('stores a string field as entered', async () => {
    expect((await api.put(`/api/ext/users/${ALICE}`, { column01: ' Ali 01 ' })).body.member.column01).toBe(' Ali 01 ');
  });

  it('stores a number field as the entered string, leading zeros kept', async () => {
    expect((await api.put(`/api/ext/users/${ALICE}`, { column02: '007.50' })).body.member.column02).toBe('007.50');
  });

  it('accepts a signed number', async () => {
    expect((await api.put(`/api/ext/users/${ALICE}`, { column02: '-12' })).body.member.column02).toBe('-12');
  });

  it('refuses a number field that is not a number', async () => {
    const r = await api.put(`/api/ext/users/${ALICE}`, { column02: '12a' });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual(['The column02 must be a number.']);
  });

  it('stores a date field as 8 digits', async () => {
    expect((await api.put(`/api/ext/users/${ALICE}`, { column03: '1990-04-01' })).body.member.column03).toBe('19900401');
  });

  it('refuses a date field in another format, including its own stored form', async () => {
    for (const v of ['19900401', '1990/04/01', '1990-02-30']) {
      expect((await api.put(`/api/ext/users/${ALICE}`, { column03: v })).body.errors, v).toEqual([
        'The column03 does not match the format Y-m-d.',
      ]);
    }
  });

  it('stores a date-time field as 12 digits', async () => {
    expect((await api.put(`/api/ext/users/${ALICE}`, { column04: '2026-01-15 09:30' })).body.member.column04).toBe('202601150930');
  });

  it('refuses a date-time field with seconds', async () => {
    expect((await api.put(`/api/ext/users/${ALICE}`, { column04: '2026-01-15 09:30:00' })).body.errors).toEqual([
      'The column04 does not match the format Y-m-d H:i.',
    ]);
  });

  it('clears a value with an empty string, whatever the type', async () => {
    await api.put(`/api/ext/users/${ALICE}`, { column01: 'x', column02: '1', column03: '2000-01-01', column04: '2000-01-01 00:00' });
    const m = (await api.put(`/api/ext/users/${ALICE}`, { column01: '', column02: '', column03: '', column04: '' })).body.member;
    expect([m.column01, m.column02, m.column03, m.column04]).toEqual([null, null, null, null]);
  });

  it('keeps a value when its key is omitted from an update', async () => {
    await api.put(`/api/ext/users/${ALICE}`, { column01: 'kept' });
    expect((await api.put(`/api/ext/users/${ALICE}`, { column02: '3' })).body.member.column01).toBe('kept');
  });

  it('accepts a custom field sent by its physical key name', async () => {
    expect((await api.put(`/api/ext/users/${ALICE}`, { birthday: '2001-12-31' })).body.member.column03).toBe('20011231');
  });

  it('refuses custom fields for a client without a custom-field setting', async () => {
    await useConfig({ custom_fields: [] });
    expect((await api.put(`/api/ext/users/${ALICE}`, { column01: 'x' })).body.errors).toEqual([
      'The custom field setting for member data is missing.',
    ]);
  });
});

describe('external IDs in register and update', () => {
  it('stores the external IDs given at registration', async () => {
    const m = (await api.post('/api/ext/users', { external_ids: { shopify: '2001', pos_card: 'A*b-c.d_e' } })).body.member;
    expect(m.external_ids).toEqual({ shopify: '2001', pos_card: 'A*b-c.d_e' });
  });

  it('silently ignores an external key that is not configured', async () => {
    const r = await api.post('/api/ext/users', { external_ids: { line: 'x1', shopify: '2002' } });
    expect(r.status).toBe(200);
    expect(r.body.member.external_ids).toEqual({ shopify: '2002' });
  });

  it('refuses an external ID already used under the same key', async () => {
    expect((await api.post('/api/ext/users', { external_ids: { shopify: '1001' } })).body.errors).toEqual([
      'The external_ids.shopify has already been taken.',
    ]);
  });

  it('accepts the same external ID under a different key', async () => {
    expect((await api.post('/api/ext/users', { external_ids: { pos_card: '1001' } })).status).toBe(200);
  });

  it('refuses an empty or null external ID', async () => {
    for (const v of ['', null]) {
      expect((await api.post('/api/ext/users', { external_ids: { shopify: v } })).body.errors).toEqual([
        'The external_ids.shopify field is required.',
      ]);
    }
  });

  it('refuses an external ID that is not a string', async () => {
    expect((await api.post('/api/ext/users', { external_ids: { shopify: 2001 } })).body.errors).toEqual([
      'The external_ids.shopify must be a string.',
    ]);
  });

  it('refuses an external ID with characters outside letters, digits and * - . _', async () => {
    expect((await api.post('/api/ext/users', { external_ids: { shopify: 'a b' } })).body.errors).toEqual([
      'The external_ids.shopify format is invalid.',
    ]);
  });

  it('refuses an external ID longer than 255 characters', async () => {
    expect((await api.post('/api/ext/users', { external_ids: { shopify: '1'.repeat(256) } })).body.errors).toEqual([
      'The external_ids.shopify may not be greater than 255 characters.',
    ]);
  });

  it('replaces one key in an update and keeps the others', async () => {
    const m = (await api.put(`/api/ext/users/${ALICE}`, { external_ids: { shopify: '3001' } })).body.member;
    expect(m.external_ids).toEqual({ shopify: '3001', pos_card: 'PC-1' });
    expect((await api.get('/api/ext/users/external_id/shopify/1001')).status).toBe(400);
  });

  it('lets a customer keep its own external ID in an update', async () => {
    expect((await api.put(`/api/ext/users/${ALICE}`, { external_ids: { shopify: '1001' } })).status).toBe(200);
  });
});

describe('PUT /api/ext/users/{id} (update)', () => {
  it('answers the whole customer, not only the changed fields', async () => {
    const m = (await api.put(`/api/ext/users/${ALICE}`, { secret_question: 'pet?' })).body.member;
    expect(m).toMatchObject({ id: ALICE, unique_id: 'U-ALICE', login_id: 'alice', secret_question: 'pet?' });
    expect(m.external_ids).toEqual({ shopify: '1001', pos_card: 'PC-1' });
  });

  it('keeps the unique_id when it is omitted, even with auto-numbering', async () => {
    await useConfig({ auto_numbering: true });
    expect((await api.put(`/api/ext/users/${ALICE}`, {})).body.member.unique_id).toBe('U-ALICE');
  });

  it("refuses taking another customer's unique_id", async () => {
    expect((await api.put(`/api/ext/users/${ALICE}`, { unique_id: 'U-BOB' })).body.errors).toEqual([
      'The unique id has already been taken.',
    ]);
  });

  it('frees the old unique_id for lookups once changed', async () => {
    await api.put(`/api/ext/users/${ALICE}`, { unique_id: 'U-ALICE-2' });
    expect((await api.get('/api/ext/users/unique_id/U-ALICE')).status).toBe(400);
    expect((await api.get('/api/ext/users/unique_id/U-ALICE-2')).body.member.id).toBe(ALICE);
  });

  it('changes the rank freely while the admin rank feature is disabled', async () => {
    expect((await api.put(`/api/ext/users/${ALICE}`, { rank: 'gold' })).body.member.rank).toBe('gold');
  });

  it('refuses a rank change while the admin rank feature is enabled', async () => {
    await useConfig({ rank_feature: true });
    expect((await api.put(`/api/ext/users/${ALICE}`, { rank: 'gold' })).status).toBe(400);
  });

  it('refuses an empty password', async () => {
    expect((await api.put(`/api/ext/users/${ALICE}`, { password: '' })).body.errors).toEqual(['The password field is required.']);
  });

  it('sets enabled to 0', async () => {
    expect((await api.put(`/api/ext/users/${ALICE}`, { enabled: 0 })).body.member.enabled).toBe(0);
  });

  it('moves updated_at to the emulator clock', async () => {
    await emu.setClock('2026-01-15 12:34:56');
    expect((await api.put(`/api/ext/users/${ALICE}`, { ud_id: 'dev-1' })).body.member.updated_at).toBe('2026-01-15 12:34:56');
  });

  it('answers "Member is not found" for an unknown id', async () => {
    const r = await api.put('/api/ext/users/00000000-0000-4000-8000-000000000999', { ud_id: 'x' });
    expect(r.body).toEqual({ status: false, errors: 'Member is not found' });
  });
});

describe('DELETE /api/ext/users/{id}/external_ids/{key}', () => {
  it('removes the external ID with 204 and an empty body', async () => {
    const r = await api.del(`/api/ext/users/${ALICE}/external_ids/pos_card`);
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect((await api.get(`/api/ext/users/${ALICE}`)).body.member.external_ids).toEqual({ shopify: '1001' });
  });

  it('makes the removed external ID unknown to lookups', async () => {
    await api.del(`/api/ext/users/${ALICE}/external_ids/shopify`);
    expect((await api.get('/api/ext/users/external_id/shopify/1001')).body.errors).toBe('Member is not found');
  });

  it('answers "External ID not found" when the customer has none under that key', async () => {
    const r = await api.del(`/api/ext/users/${BOB}/external_ids/pos_card`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ status: false, errors: 'External ID not found' });
  });

  it('answers the structured 404 Page Not Found for an unknown customer id', async () => {
    const r = await api.del('/api/ext/users/00000000-0000-4000-8000-000000000999/external_ids/shopify');
    expect(r.status).toBe(404);
    expect(r.body).toEqual(structuredError('Page Not Found', 'API-OPENAPI08'));
  });
});
