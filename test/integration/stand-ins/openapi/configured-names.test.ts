/**
 * Names that plain JavaScript objects already carry (toString, constructor, __proto__, ...) are
 * configuration only when the configuration lists them: neither accepted as configured when it does not,
 * nor lost when it does. Objects with an own `__proto__` key are built with JSON.parse, as a request body is.
 */
import { describe, expect, it } from 'vitest';
import { testClient } from '../../../support/emulator.js';
import { ALICE, connect, NOW, request, useEmulator } from './http.js';

const { emu, api, reconnect } = useEmulator();

const OBJECT_NAMES = ['toString', 'constructor', '__proto__', 'valueOf', 'hasOwnProperty', 'isPrototypeOf'];

/** A configuration of one test-client whose JSON is `clientJson` merged over testClient()'s, with ALICE seeded. */
async function useClient(clientJson: string): Promise<void> {
  const client = { ...testClient(), ...JSON.parse(clientJson) };
  if (client.members === undefined) client.members = [{ id: ALICE }];
  await emu.reset({ now: NOW, clients: [client] });
  await reconnect();
}

describe('ranks', () => {
  it('refuses a rank named like an object member that is not configured', async () => {
    for (const rank of OBJECT_NAMES) {
      const r = await api.post('/api/ext/users', { rank });
      expect([r.status, r.body], rank).toEqual([400, { status: false, errors: ['The selected rank is invalid.'] }]);
    }
  });

  it('refuses a configuration whose default rank is an object member not in ranks', async () => {
    const r = await emu.admin('POST', '/reset', { now: NOW, clients: [testClient({ default_rank: 'toString' })] });
    expect(r.status).toBe(400);
  });

  it('grants the configured rate of a rank named like an object member', async () => {
    for (const rank of OBJECT_NAMES) {
      await useClient(
        `{"ranks":{"regular":0.01,${JSON.stringify(rank)}:0.1},"members":[{"id":"${ALICE}","rank":${JSON.stringify(rank)}}]}`,
      );
      const r = await api.post(`/api/ext/users/${ALICE}/points/calculation`, { amount: 1000 });
      expect([r.status, r.body.member?.point], rank).toEqual([200, 100]);
    }
  });

  it('shows a rank configured as __proto__ in the client patch answer', async () => {
    const r = await emu.admin<{ ranks: Record<string, number> }>(
      'PATCH',
      '/clients/test-client',
      JSON.parse('{"ranks":{"regular":0.01,"__proto__":0.2}}'),
    );
    expect(Object.entries(r.body.ranks)).toEqual([
      ['regular', 0.01],
      ['__proto__', 0.2],
    ]);
  });
});

describe('custom fields', () => {
  const config =
    '{"custom_fields":[{"column":"column01","key":"__proto__","type":"string"},{"column":"column02","key":"constructor","type":"string"}]}';

  it('stores a value sent under a physical key named __proto__', async () => {
    await useClient(config);
    const r = await api.call('POST', '/api/ext/users', { body: '{"__proto__":"x","constructor":"y"}' });
    expect([r.body.member.column01, r.body.member.column02]).toEqual(['x', 'y']);
  });

  it('answers physical keys named like object members with with_column_key=true', async () => {
    await useClient(config);
    const r = await api.call('POST', '/api/ext/users', { body: '{"column01":"x","column02":"y","with_column_key":true}' });
    expect(r.text).toContain('"__proto__":"x","constructor":"y"');
  });

  it('reads a multipart field named __proto__', async () => {
    await useClient(config);
    const r = await api.call('POST', '/api/ext/users', { multipart: JSON.parse('{"__proto__":"x"}') });
    expect(r.body.member.column01).toBe('x');
  });

  it('seeds a customer with a value under a physical key named __proto__', async () => {
    await useClient(`${config.slice(0, -1)},"members":[{"id":"${ALICE}","__proto__":"seeded"}]}`);
    expect((await api.get(`/api/ext/users/${ALICE}`)).body.member.column01).toBe('seeded');
  });

  it('ignores a key named like an object member when no field has it', async () => {
    await useClient('{"custom_fields":[{"column":"column01","key":"nickname","type":"string"}]}');
    const r = await api.call('POST', '/api/ext/users', { body: '{"toString":"x","__proto__":"y"}' });
    expect([r.status, r.body.member.column01]).toEqual([200, null]);
  });
});

describe('external keys', () => {
  it('finds no customer under an external key named like an object member that is not configured', async () => {
    for (const key of OBJECT_NAMES) {
      const r = await api.get(`/api/ext/users/external_id/${key}/1001`);
      expect([r.status, r.body], key).toEqual([400, { status: false, errors: 'Member is not found' }]);
    }
  });

  it('stores and finds an external ID under a configured key named __proto__', async () => {
    await useClient('{"external_keys":["__proto__"]}');
    const reg = await api.call('POST', '/api/ext/users', { body: '{"external_ids":{"__proto__":"E-1"}}' });
    const found = await api.get('/api/ext/users/external_id/__proto__/E-1');
    expect(found.body.member.id).toBe(reg.body.member.id);
    expect(found.text).toContain('"external_ids":{"__proto__":"E-1"}');
  });
});

describe('clients', () => {
  it('refuses a token to a client_id named like an object member that is not configured', async () => {
    for (const client_id of OBJECT_NAMES) {
      const r = await request(emu.url, 'POST', '/api/ext/token', {
        body: { grant_type: 'client_credentials', client_id, client_secret: 'x' },
      });
      expect(r.status, client_id).toBe(401);
    }
  });

  it('shows the stats of a client named __proto__', async () => {
    await emu.reset({ now: NOW, clients: [testClient({ client_id: '__proto__', client_secrets: ['s'] })] });
    await connect(emu, '__proto__', 's');
    expect((await emu.stats('__proto__'))?.token_requests).toBe(1);
  });
});
