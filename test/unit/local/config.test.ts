import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG_PATH } from '../../../emulator/index.js';
import { resolveLocalConfig } from '../../../local/config.js';

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
    expect(config.ports).toEqual({ intake: 3000, emulator: 8787, dynamodb: 8000, shopifyAdmin: 8789 });
    expect(config.emulatorConfigPath).toBe(DEMO_CONFIG_PATH);
    expect(config.webhookSecrets).toEqual({ shopify: ['demo-shopify-secret'], pos: ['demo-pos-secret'] });
    expect(config.defaulted).toEqual({ shopify: true, pos: true });
    expect(config).toMatchObject({ clientId: 'demo-client', clientSecret: 'demo-secret', tableName: 'points-ledger' });
  });

  it('reads the ports and the comma-separated secrets from the environment', async () => {
    const config = await resolveLocalConfig({
      PORT: '4000',
      EMULATOR_PORT: '0',
      DYNAMODB_PORT: '9000',
      SHOPIFY_ADMIN_PORT: '9001',
      SHOPIFY_WEBHOOK_SECRET: 'shop-new, shop-old',
      POS_WEBHOOK_SECRETS: 'till-1,till-2,',
    });
    expect(config.ports).toEqual({ intake: 4000, emulator: 0, dynamodb: 9000, shopifyAdmin: 9001 });
    expect(config.webhookSecrets).toEqual({ shopify: ['shop-new', 'shop-old'], pos: ['till-1', 'till-2'] });
    expect(config.defaulted).toEqual({ shopify: false, pos: false });
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
});
