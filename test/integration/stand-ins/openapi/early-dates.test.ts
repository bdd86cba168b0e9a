/**
 * Dates in the years 0000-0099: the Open API's formats (`Y-m-d`, `Y-m-d H:i`, `Y-m-d H:i:s`) allow them, and they
 * round-trip exactly (JavaScript's Date.UTC would read year 1 as 1901).
 */
import { describe, expect, it } from 'vitest';
import { ALICE, useEmulator } from './http.js';

const { emu, api, reconnect } = useEmulator();

/** Sets one custom field of Alice: the status and the value her detail form then shows. */
async function putColumn(column: string, value: string): Promise<[number, unknown]> {
  const r = await api.put(`/api/ext/users/${ALICE}`, { [column]: value });
  return [r.status, r.body.member[column]];
}

describe('a date custom field', () => {
  it('accepts 0001-01-01 and returns it as 00010101', async () => {
    expect(await putColumn('column03', '0001-01-01')).toEqual([200, '00010101']);
  });

  it('accepts 0099-12-31 and returns it as 00991231', async () => {
    expect(await putColumn('column03', '0099-12-31')).toEqual([200, '00991231']);
  });

  it('accepts 29 February of the leap year 0004', async () => {
    expect(await putColumn('column03', '0004-02-29')).toEqual([200, '00040229']);
  });

  it('refuses 29 February of 0100, which is no leap year', async () => {
    const r = await api.put(`/api/ext/users/${ALICE}`, { column03: '0100-02-29' });
    expect([r.status, r.body.errors]).toEqual([400, ['The column03 does not match the format Y-m-d.']]);
  });
});

describe('a date-time custom field', () => {
  it('accepts 0001-01-01 00:00 and returns it as 000101010000', async () => {
    expect(await putColumn('column04', '0001-01-01 00:00')).toEqual([200, '000101010000']);
  });

  it('accepts 0099-12-31 23:59 and returns it as 009912312359', async () => {
    expect(await putColumn('column04', '0099-12-31 23:59')).toEqual([200, '009912312359']);
  });
});

describe('logined_at', () => {
  it('accepts 0001-01-01 00:00:00 and returns it unchanged', async () => {
    const r = await api.put(`/api/ext/users/${ALICE}`, { logined: 1, logined_at: '0001-01-01 00:00:00' });
    expect([r.status, r.body.member.logined_at]).toEqual([200, '0001-01-01 00:00:00']);
  });

  it('accepts 0099-12-31 23:59:59 on register and returns it unchanged', async () => {
    const r = await api.post('/api/ext/users', { logined: 1, logined_at: '0099-12-31 23:59:59' });
    expect([r.status, r.body.member.logined_at]).toEqual([200, '0099-12-31 23:59:59']);
  });
});

describe('the emulator clock in the year 50', () => {
  it('is set and answered exactly', async () => {
    await emu.setClock('0050-06-01 12:00:00');
    expect(await emu.now()).toBe('0050-06-01 12:00:00');
  });

  it('stamps records with four-digit years', async () => {
    await emu.setClock('0050-06-01 12:00:00');
    await reconnect();
    expect((await api.post('/api/ext/users', {})).body.member.created_at).toBe('0050-06-01 12:00:00');
  });

  it('takes an expired_at in the year 99 as a future date', async () => {
    await emu.setClock('0050-06-01 12:00:00');
    await reconnect();
    await api.post(`/api/ext/users/${ALICE}/points`, { point: 5, expired_at: '0099-12-31' });
    const h = await api.get(`/api/ext/users/${ALICE}/points`);
    expect(h.body.points[0].expired_at).toBe('0099-12-31 23:59:59');
  });
});
