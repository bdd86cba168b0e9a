import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG_PATH } from '../../../../stand-ins/openapi/index.js';
import { resolveLocalConfig } from '../../../../kit/local-stack/config.js';
import { SmaregiSettings } from '../../../../shared/sources/index.js';

const TILL_1 = 'till-1-signing-secret-0123456789ab';
const TILL_2 = 'till-2-signing-secret-0123456789ab';

describe('local configuration', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'local-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('uses the documented defaults when nothing is set', async () => {
    const config = await resolveLocalConfig({});
    expect(config.ports).toEqual({ intake: 3000, emulator: 8787, dynamodb: 8000, shopifyAdmin: 8789, squareOrders: 8791, smaregi: 8790 });
    expect(config.emulatorConfigPath).toBe(DEMO_CONFIG_PATH);
    expect(config.webhookSecrets).toEqual({
      shopify: ['demo-shopify-secret'],
      pos: ['demo-pos-secret-for-local-use-only'],
      square: ['demo-square-signature-key'],
    });
    expect(config.defaulted).toEqual({ shopify: true, pos: true, square: true });
    expect(config.squareNotificationUrl).toBeUndefined();
    expect(config).toMatchObject({ clientId: 'demo-client', clientSecret: 'demo-secret', tableName: 'points-ledger' });
  });

  it('derives the queue from the same timing as the stack: visibility above the lease, a few receives for failures', async () => {
    const config = await resolveLocalConfig({});
    expect(config.timing).toMatchObject({ leaseSeconds: 30, visibilityTimeoutSeconds: 180, retryHorizonSeconds: 86_400 });
    expect(config.maxReceiveCount).toBe(6);
  });

  it('refuses a queue whose visibility timeout is shorter than the lease, naming the variables', async () => {
    const attempt = resolveLocalConfig({ LEASE_SECONDS: '120', QUEUE_VISIBILITY_TIMEOUT_SECONDS: '10', QUEUE_MAX_RECEIVE_COUNT: '1' });
    await expect(attempt).rejects.toMatchObject({ kind: 'invalid_local_config' });
    await expect(attempt).rejects.toThrow(/QUEUE_VISIBILITY_TIMEOUT_SECONDS.*QUEUE_MAX_RECEIVE_COUNT/);
  });

  it('refuses a bad campaign rule at start, naming its id and field', async () => {
    const rule = { id: 'xmas', title: 'クリスマス', from: '2026-12-20T00:00:00+09:00', to: '2026-12-10T00:00:00+09:00', fixedPoints: 100 };
    await expect(resolveLocalConfig({ CAMPAIGNS_CONFIG: JSON.stringify([rule]) })).rejects.toThrow(
      /campaign 'xmas' \(CAMPAIGNS_CONFIG\[0\]\) to: must be after from/,
    );
  });

  it('reads the campaign rules for the worker', async () => {
    const rule = {
      id: 'double',
      title: 'ポイント2倍',
      from: '2026-12-01T00:00:00+09:00',
      to: '2026-12-02T00:00:00+09:00',
      multiplier: '2',
    };
    const config = await resolveLocalConfig({ CAMPAIGNS_CONFIG: JSON.stringify([rule]) });
    expect(config.processing.campaigns).toEqual([rule]);
  });

  it('refuses a lease that leaves no time to send after its margin, naming the variable', async () => {
    await expect(resolveLocalConfig({ LEASE_SECONDS: '19' })).rejects.toThrow(/LEASE_SECONDS.*must be >= 20 s/);
  });

  it('refuses an in-doubt horizon shorter than the lease margin, naming the variable', async () => {
    await expect(resolveLocalConfig({ IN_DOUBT_SECONDS: '14' })).rejects.toThrow(
      /IN_DOUBT_SECONDS.*in-doubt horizon \(14 s\) must be >= the lease's margin \(15 s\)/,
    );
  });

  it('hands IN_DOUBT_SECONDS to the worker as the stack does (default 120 s, any value from the margin up)', async () => {
    expect((await resolveLocalConfig({})).processing.inDoubtSeconds).toBe(120);
    expect((await resolveLocalConfig({ IN_DOUBT_SECONDS: '20' })).processing.inDoubtSeconds).toBe(20);
  });

  it('reads the ports and the comma-separated secrets from the environment', async () => {
    const config = await resolveLocalConfig({
      PORT: '4000',
      EMULATOR_PORT: '0',
      DYNAMODB_PORT: '9000',
      SHOPIFY_ADMIN_PORT: '9001',
      SQUARE_ORDERS_PORT: '9002',
      SMAREGI_PORT: '9003',
      SHOPIFY_WEBHOOK_SECRET: 'shop-secret-newest, shop-secret-older',
      POS_WEBHOOK_SECRETS: `${TILL_1},${TILL_2},`,
      SQUARE_WEBHOOK_SIGNATURE_KEY: 'square-key-newest,square-key-older',
      SQUARE_NOTIFICATION_URL: 'https://hooks.example.com/webhooks/square',
    });
    expect(config.ports).toEqual({ intake: 4000, emulator: 0, dynamodb: 9000, shopifyAdmin: 9001, squareOrders: 9002, smaregi: 9003 });
    expect(config.webhookSecrets).toEqual({
      shopify: ['shop-secret-newest', 'shop-secret-older'],
      pos: [TILL_1, TILL_2],
      square: ['square-key-newest', 'square-key-older'],
    });
    expect(config.defaulted).toEqual({ shopify: false, pos: false, square: false });
    expect(config.squareNotificationUrl).toBe('https://hooks.example.com/webhooks/square');
  });

  it('refuses a POS secret shorter than 32 characters, naming the variable and never the value', async () => {
    const error = (await resolveLocalConfig({ POS_WEBHOOK_SECRETS: `${TILL_1},till-2` }).catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ kind: 'invalid_local_config' });
    expect(error.message).toMatch(/POS_WEBHOOK_SECRETS: each secret must be at least 32 characters/);
    expect(error.message).not.toContain('till-2');
  });

  it('refuses a Shopify secret shorter than 16 characters', async () => {
    await expect(resolveLocalConfig({ SHOPIFY_WEBHOOK_SECRET: 'short' })).rejects.toThrow(
      /SHOPIFY_WEBHOOK_SECRET: each secret must be at least 16 characters/,
    );
  });

  it('logs in with the first client and first secret of EMULATOR_CONFIG', async () => {
    const file = join(dir, 'emulator.json');
    await writeFile(
      file,
      JSON.stringify({
        clients: [
          { client_id: 'shop-a', client_secrets: ['first', 'second'] },
          { client_id: 'shop-b', client_secrets: ['other'] },
        ],
      }),
    );
    const config = await resolveLocalConfig({ EMULATOR_CONFIG: file });
    expect(config).toMatchObject({ emulatorConfigPath: file, clientId: 'shop-a', clientSecret: 'first' });
  });

  it.each([
    ['PORT', { PORT: '70000' }],
    ['EMULATOR_PORT', { EMULATOR_PORT: 'eighty' }],
    ['DYNAMODB_PORT', { DYNAMODB_PORT: '-1' }],
    ['QUEUE_VISIBILITY_TIMEOUT_SECONDS', { QUEUE_VISIBILITY_TIMEOUT_SECONDS: '0' }],
    ['LOCAL_LOGS', { LOCAL_LOGS: 'loud' }],
    ['LEDGER_TABLE', { LEDGER_TABLE: 'x' }],
    ['SQUARE_NOTIFICATION_URL', { SQUARE_NOTIFICATION_URL: 'not a url' }],
  ])('refuses a bad %s with an error naming it', async (name, env) => {
    await expect(resolveLocalConfig(env)).rejects.toMatchObject({ kind: 'invalid_local_config', message: expect.stringContaining(name) });
  });

  it('names EMULATOR_CONFIG when its file cannot be read', async () => {
    await expect(resolveLocalConfig({ EMULATOR_CONFIG: join(dir, 'missing.json') })).rejects.toMatchObject({
      kind: 'invalid_local_config',
      message: expect.stringContaining('EMULATOR_CONFIG'),
    });
  });

  it('refuses an emulator configuration without a client, since the worker needs one to log in', async () => {
    const file = join(dir, 'no-clients.json');
    await writeFile(file, JSON.stringify({ clients: [] }));
    await expect(resolveLocalConfig({ EMULATOR_CONFIG: file })).rejects.toMatchObject({ kind: 'invalid_local_config' });
  });

  it('reads SMAREGI_STORE_IDS and SMAREGI_MEMBER_LOOKUP as the Smaregi source settings a stage file names storeIds and memberLookup', async () => {
    const config = await resolveLocalConfig({ SMAREGI_STORE_IDS: '1, 4', SMAREGI_MEMBER_LOOKUP: 'unique_id' });
    const stageSettings = SmaregiSettings.parse({ contractId: 'c', storeIds: ['1', '4'], memberLookup: 'unique_id' });
    expect([config.smaregi.storeIds, config.smaregi.memberLookup]).toEqual([stageSettings.storeIds, stageSettings.memberLookup]);
  });

  it('refuses a SMAREGI_STORE_IDS that is not store ids', async () => {
    const error = (await resolveLocalConfig({ SMAREGI_STORE_IDS: '1,shibuya' }).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe('SMAREGI_STORE_IDS must be Smaregi store ids (digits), comma-separated');
  });

  it('reads SMAREGI_TILL_POINTS as the Smaregi source setting a stage file names tillPoints, ignore when unset', async () => {
    const config = await resolveLocalConfig({ SMAREGI_TILL_POINTS: 'membership' });
    const unset = await resolveLocalConfig({});
    const stage = SmaregiSettings.parse({ contractId: 'c', tillPoints: 'membership' });
    const stageDefault = SmaregiSettings.parse({ contractId: 'c' });
    expect([config.smaregi.tillPoints, unset.smaregi.tillPoints ?? stageDefault.tillPoints]).toEqual([stage.tillPoints, 'ignore']);
  });

  it('refuses a SMAREGI_TILL_POINTS that is neither ignore nor membership', async () => {
    const error = (await resolveLocalConfig({ SMAREGI_TILL_POINTS: 'smaregi' }).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe('SMAREGI_TILL_POINTS must be ignore or membership');
  });

  it('reads SMAREGI_RETURNS and SMAREGI_RETURN_WINDOW_DAYS as the source settings returns and returnWindowDays, manual and 30 days when unset', async () => {
    const config = await resolveLocalConfig({ SMAREGI_RETURNS: 'auto', SMAREGI_RETURN_WINDOW_DAYS: '14' });
    const unset = await resolveLocalConfig({});
    const stageDefault = SmaregiSettings.parse({ contractId: 'c' });
    expect([
      config.smaregi.returns,
      config.smaregi.returnWindowDays,
      unset.smaregi.returns ?? stageDefault.returns,
      unset.smaregi.returnWindowDays ?? stageDefault.returnWindowDays,
    ]).toEqual(['auto', 14, 'manual', 30]);
  });

  it('refuses a SMAREGI_RETURNS other than manual or auto, and a SMAREGI_RETURN_WINDOW_DAYS outside 1-365', async () => {
    const refused = async (env: Record<string, string>) => ((await resolveLocalConfig(env).catch((e: unknown) => e)) as Error).message;
    expect([
      await refused({ SMAREGI_RETURNS: 'always' }),
      await refused({ SMAREGI_RETURN_WINDOW_DAYS: '0' }),
      await refused({ SMAREGI_RETURN_WINDOW_DAYS: '400' }),
    ]).toEqual([
      'SMAREGI_RETURNS must be manual or auto',
      'SMAREGI_RETURN_WINDOW_DAYS must be an integer from 1 to 365, got "0"',
      'SMAREGI_RETURN_WINDOW_DAYS must be an integer from 1 to 365, got "400"',
    ]);
  });
});
