import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { rotateCommand } from '../../../ops/rotate.js';
import { createSecretsManagerReader, ENV, webhookSecretsFromEnv } from '../../../shared/config/index.js';
import { clearTokenCache, createOpenApiClient, secretsManagerCredentials } from '../../../shared/openapi/index.js';
import { type AwsBoundary, startAwsBoundary, stubAwsEndpoints } from '../../support/aws-boundary.js';
import { startTestEmulator, type TestEmulator } from '../../support/emulator.js';

/**
 * `npm run rotate -- ... --stage staging` as an operator runs it: the staging stage file names the
 * secrets, Secrets Manager is answered at its HTTP boundary (test/support/aws-boundary.ts: it cannot
 * run here), the functions' side is the real reader the Lambdas use, the membership service the emulator.
 */
const SHOPIFY = 'loyalty-bridge/staging/webhook/shopify';
const OPENAPI = 'loyalty-bridge/staging/openapi';
const OLD = 'old-shopify-app-secret-0001';
const NEW = 'new-shopify-app-secret-0002';

describe('rotate --stage', () => {
  let boundary: AwsBoundary;
  let emulator: TestEmulator;
  let dir: string;
  let slept: number[];

  const rotate = async (args: string[], input?: string) => {
    const lines: string[] = [];
    const io = { stdin: Readable.from(input === undefined ? [] : [`${input}\n`]), sleep: async (ms: number) => void slept.push(ms) };
    const code = await rotateCommand(
      [...args, '--stage', 'staging'],
      {},
      { print: (l) => lines.push(l), printError: (l) => lines.push(l) },
      io,
    );
    return { code, lines, text: lines.join('\n') };
  };
  /** What a receiver in the stage reads (the Lambda's own reader, uncached: a new container). */
  const receiverSecrets = () =>
    webhookSecretsFromEnv(
      { [ENV.WEBHOOK_SECRET_ARNS]: JSON.stringify({ shopify: SHOPIFY }) },
      { reader: createSecretsManagerReader() },
    ).get('shopify');

  beforeAll(async () => {
    boundary = await startAwsBoundary();
    emulator = await startTestEmulator();
    dir = mkdtempSync(join(tmpdir(), 'rotate-stage-'));
  });
  beforeEach(() => {
    stubAwsEndpoints({ secretsManager: boundary.url });
    vi.stubEnv('AWS_REGION', 'ap-northeast-1'); // the functions' region, as Lambda sets it
    slept = [];
  });
  afterEach(() => vi.unstubAllEnvs());
  afterAll(async () => {
    await boundary.close();
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('puts the new Shopify secret first beside the old, waits out the functions’ 5-minute cache, and retires the old on --retire', async () => {
    boundary.setSecret(SHOPIFY, JSON.stringify({ secrets: [OLD] }));
    const added = await rotate(['--source', 'shopify'], NEW);
    expect(added.code).toBe(0);
    expect(added.lines.at(-1)).toBe('rotate: shopify added secrets=2');
    expect(slept).toEqual([300_000]);
    expect(await receiverSecrets()).toEqual([NEW, OLD]);

    const retired = await rotate(['--source', 'shopify', '--retire']);
    expect(retired.code).toBe(0);
    expect(retired.lines.at(-1)).toBe('rotate: shopify retired secrets=1');
    expect(await receiverSecrets()).toEqual([NEW]);
    for (const out of [added.text, retired.text]) {
      expect(out).not.toContain(NEW);
      expect(out).not.toContain(OLD);
    }
  });

  it('reads the new secret from --secret-file and honours --wait', async () => {
    const pos = 'loyalty-bridge/staging/webhook/pos';
    boundary.setSecret(pos, JSON.stringify({ secrets: ['p'.repeat(40)] }));
    const file = join(dir, 'pos-secret');
    writeFileSync(file, `${'q'.repeat(40)}\n`);
    const added = await rotate(['--source', 'pos', '--secret-file', file, '--wait', '5']);
    expect(added.code).toBe(0);
    expect(slept).toEqual([5_000]);
    expect(JSON.parse(boundary.secret(pos) ?? '')).toEqual({ secrets: ['q'.repeat(40), 'p'.repeat(40)] });
  });

  it('refuses a POS secret under 32 characters and writes nothing', async () => {
    const pos = 'loyalty-bridge/staging/webhook/pos';
    boundary.setSecret(pos, JSON.stringify({ secrets: ['p'.repeat(40)] }));
    const refused = await rotate(['--source', 'pos'], 'short-pos-secret');
    expect(refused.code).toBe(2);
    expect(refused.text).toContain('at least 32 characters');
    expect(refused.text).not.toContain('short-pos-secret');
    expect(JSON.parse(boundary.secret(pos) ?? '')).toEqual({ secrets: ['p'.repeat(40)] });
  });

  it('refuses an unknown source and a secret given on a terminal, naming the fix', async () => {
    expect((await rotate(['--source', 'nope'], NEW)).text).toMatch(/no source nope is configured here/);
    const lines: string[] = [];
    const tty = Object.assign(Readable.from([]), { isTTY: true });
    const code = await rotateCommand(
      ['--source', 'shopify', '--stage', 'staging'],
      {},
      { print: (l) => lines.push(l), printError: (l) => lines.push(l) },
      {
        stdin: tty,
        sleep: async () => undefined,
      },
    );
    expect(code).toBe(2);
    expect(lines.join('\n')).toMatch(/give the new secret on stdin/);
  });

  it('stages the Open API client secret: the worker logs in with the next one once the service switched; --retire only after it did', async () => {
    boundary.setSecret(OPENAPI, JSON.stringify({ base_url: emulator.url, client_id: 'test-client', client_secret: 'test-secret' }));
    const added = await rotate(['--openapi'], 'rotated-client-secret');
    expect(added.code).toBe(0);
    expect(added.lines.at(-1)).toBe('rotate: openapi added secrets=2');
    expect(added.text).not.toContain('rotated-client-secret');

    // Retiring before the membership service switched would leave the worker no working secret.
    const early = await rotate(['--openapi', '--retire']);
    expect(early.code).toBe(2);
    expect(early.text).toMatch(/refuses the new client secret/);
    expect(JSON.parse(boundary.secret(OPENAPI) ?? '').client_secret).toBe('test-secret');

    await emulator.patchClient('test-client', { client_secrets: ['rotated-client-secret'] });
    clearTokenCache(); // a new worker container: no token yet
    const worker = createOpenApiClient({ credentials: secretsManagerCredentials(OPENAPI, createSecretsManagerReader()) });
    try {
      await expect(worker.listMembers()).resolves.toBeDefined();
    } finally {
      await worker.close();
    }

    const retired = await rotate(['--openapi', '--retire']);
    expect(retired.code).toBe(0);
    expect(retired.lines.at(-1)).toBe('rotate: openapi retired secrets=1');
    expect(JSON.parse(boundary.secret(OPENAPI) ?? '')).toEqual({
      base_url: emulator.url,
      client_id: 'test-client',
      client_secret: 'rotated-client-secret',
    });
  });
});
