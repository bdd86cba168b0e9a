import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  plainCredentialsFromEnv,
  fileCredentials,
  secretsManagerCredentials,
  staticCredentials,
  type SecretReader,
} from '../../../../shared/openapi/index.js';

const secretJson = (secret: string) => JSON.stringify({ base_url: 'http://127.0.0.1:1', client_id: 'c', client_secret: secret });

/** A SecretReader over an in-memory value (the reader's own caching is tested with the SDK stub). */
function memoryReader(initial: string) {
  const state = { value: initial, forced: 0 };
  const reader: SecretReader = {
    async read(_id, opts) {
      if (opts?.forceRefresh) state.forced++;
      return state.value;
    },
  };
  return { state, reader };
}

describe('credentials providers', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'creds-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('maps the secret JSON to credentials', async () => {
    const { reader } = memoryReader(secretJson('s1'));
    expect(await secretsManagerCredentials('arn', reader).get()).toEqual({
      baseUrl: 'http://127.0.0.1:1',
      clientId: 'c',
      clientSecret: 's1',
    });
  });

  it('passes a forced refresh through to the secret reader', async () => {
    const { state, reader } = memoryReader(secretJson('s1'));
    await secretsManagerCredentials('arn', reader).get({ forceRefresh: true });
    expect(state.forced).toBe(1);
  });

  it('names the missing field of a malformed secret without showing any value', async () => {
    const { reader } = memoryReader(JSON.stringify({ base_url: 'https://x', client_id: 'c', client_secret: '' }));
    const err = await secretsManagerCredentials('arn', reader)
      .get()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'ConfigurationError', kind: 'invalid_credentials' });
    expect((err as Error).message).toBe('secret arn: missing or invalid client_secret');
  });

  it('refuses a secret that is not JSON without echoing it', async () => {
    const { reader } = memoryReader('hunter2');
    const err = (await secretsManagerCredentials('arn', reader)
      .get()
      .catch((e: unknown) => e)) as Error;
    expect(err.message).toBe('secret arn: not JSON');
  });

  it('refuses a base URL that is not http(s)', () => {
    expect(() => staticCredentials({ baseUrl: 'ftp://x', clientId: 'c', clientSecret: 's' })).toThrow(/base_url/);
  });

  it('refuses a plain http base URL to another machine: the client secret and tokens would travel in clear', () => {
    expect(() => staticCredentials({ baseUrl: 'http://membership.example.com', clientId: 'c', clientSecret: 's' })).toThrow(/base_url/);
  });

  for (const baseUrl of ['http://127.0.0.1:8787', 'http://localhost:8787/', 'http://[::1]:8787', 'https://membership.example.com/base']) {
    it(`accepts ${baseUrl} (https, or http to this machine)`, () => {
      expect(() => staticCredentials({ baseUrl, clientId: 'c', clientSecret: 's' })).not.toThrow();
    });
  }

  it('reads the local environment variables', async () => {
    const env = { OPENAPI_BASE_URL: 'http://127.0.0.1:8787', OPENAPI_CLIENT_ID: 'demo', OPENAPI_CLIENT_SECRET: 'x' };
    expect(await plainCredentialsFromEnv(env).get()).toEqual({ baseUrl: 'http://127.0.0.1:8787', clientId: 'demo', clientSecret: 'x' });
  });

  it('reads a credentials file again on a forced refresh', async () => {
    const path = join(dir, 'c.json');
    await writeFile(path, secretJson('old'));
    const provider = fileCredentials(path);
    await provider.get();
    await writeFile(path, secretJson('new'));
    expect((await provider.get()).clientSecret).toBe('old');
    expect((await provider.get({ forceRefresh: true })).clientSecret).toBe('new');
  });
});
