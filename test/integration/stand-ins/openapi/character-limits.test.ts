/**
 * "max N characters" counts characters (code points), not UTF-16 units: a kanji outside the BMP such as 𠮷
 * (used in personal names) or an emoji is one character, though JavaScript's length says 2.
 */
import { describe, expect, it } from 'vitest';
import { testClient } from '../../../support/emulator.js';
import { ALICE, NOW, useEmulator } from './http.js';

const { emu, api, reconnect } = useEmulator();

const KANJI = '𠮷';
const EMOJI = '😀';

describe('register and update limits of 255 characters', () => {
  for (const field of ['secret_question', 'secret_answer', 'ud_id']) {
    it(`accepts a ${field} of 255 astral characters and returns it unchanged`, async () => {
      const value = KANJI.repeat(254) + EMOJI;
      const r = await api.put(`/api/ext/users/${ALICE}`, { [field]: value });
      expect([r.status, r.body.member?.[field]]).toEqual([200, value]);
    });

    it(`refuses a ${field} of 256 astral characters`, async () => {
      const r = await api.put(`/api/ext/users/${ALICE}`, { [field]: KANJI.repeat(256) });
      expect([r.status, r.body.errors]).toEqual([400, [`The ${field.replace(/_/g, ' ')} may not be greater than 255 characters.`]]);
    });
  }

  it('refuses a login_id of astral characters only for being multi-byte, not for its length', async () => {
    const r = await api.put(`/api/ext/users/${ALICE}`, { login_id: KANJI.repeat(200) });
    expect(r.body.errors).toEqual(['The login id may only contain single-byte characters.']);
  });
});

describe('ranks', () => {
  it('registers a customer with a configured rank of 255 astral characters', async () => {
    const rank = EMOJI.repeat(255);
    await emu.reset({ now: NOW, clients: [testClient({ ranks: { regular: 0.01, [rank]: 0.1 } })] });
    await reconnect();
    const r = await api.post('/api/ext/users', { rank });
    expect([r.status, r.body.member?.rank]).toEqual([200, rank]);
  });

  it('refuses a configuration with a rank of 256 astral characters', async () => {
    const r = await emu.admin('POST', '/reset', {
      now: NOW,
      clients: [testClient({ ranks: { regular: 0.01, [EMOJI.repeat(256)]: 0.1 } })],
    });
    expect(r.status).toBe(400);
  });
});

describe('custom-field keys', () => {
  it('accepts a configured physical key of 64 astral characters', async () => {
    const key = KANJI.repeat(64);
    const r = await emu.admin('POST', '/reset', {
      now: NOW,
      clients: [testClient({ custom_fields: [{ column: 'column01', key, type: 'string' }] })],
    });
    expect(r.status).toBe(204);
  });
});

describe('external IDs', () => {
  it('refuses 200 astral characters for the characters they are, not for their length', async () => {
    const r = await api.put(`/api/ext/users/${ALICE}`, { external_ids: { shopify: KANJI.repeat(200) } });
    expect(r.body.errors).toEqual(['The external_ids.shopify format is invalid.']);
  });
});

describe('point title and remarks', () => {
  for (const field of ['title', 'remarks']) {
    it(`accepts a ${field} of 255 astral characters and records it unchanged`, async () => {
      const value = EMOJI.repeat(255);
      await api.post(`/api/ext/users/${ALICE}/points`, { point: 1, [field]: value });
      expect((await api.get(`/api/ext/users/${ALICE}/points`)).body.points[0]?.[field]).toBe(value);
    });

    it(`refuses a ${field} of 256 astral characters`, async () => {
      const r = await api.post(`/api/ext/users/${ALICE}/points/calculation`, { amount: 100, [field]: EMOJI.repeat(256) });
      expect([r.status, r.body.errors]).toEqual([400, [`The ${field} may not be greater than 255 characters.`]]);
    });
  }
});
