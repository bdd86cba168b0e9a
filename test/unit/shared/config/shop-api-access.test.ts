import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { perSourceClients, readJsonSecret, type SecretReader } from '../../../../shared/config/index.js';

// Secrets Manager itself cannot run here: an in-memory reader stands in at that boundary.
const reader = (text: string | Error): SecretReader => ({
  read: async () => {
    if (text instanceof Error) throw text;
    return text;
  },
});
const Token = z.object({ access_token: z.string().min(1) });
const errors = {
  unreadable: () => new Error('cannot read the token secret'),
  malformed: () => new Error('the token secret holds no token'),
};

describe('readJsonSecret', () => {
  it('returns the secret as its schema reads it', async () => {
    expect(await readJsonSecret(reader('{"access_token":"t-1"}'), 'arn', Token, errors)).toEqual({ access_token: 't-1' });
  });

  it('says the secret could not be read when the reader fails', async () => {
    await expect(readJsonSecret(reader(new Error('AccessDenied')), 'arn', Token, errors)).rejects.toThrow('cannot read the token secret');
  });

  it('says what is wrong with a secret that is not JSON or lacks the field, never its text', async () => {
    for (const text of ['not json s3cr3t', '{"token":"s3cr3t"}']) {
      const error = await readJsonSecret(reader(text), 'arn', Token, errors).catch((e: unknown) => e as Error);
      expect(error).toMatchObject({ message: 'the token secret holds no token' });
      expect(JSON.stringify(error)).not.toContain('s3cr3t');
    }
  });
});

describe('perSourceClients', () => {
  it('makes one client per configured source on first use and keeps it', () => {
    const made: string[] = [];
    const clientOf = perSourceClients({ a: 'access-a', b: 'access-b' }, (access) => {
      made.push(access);
      return { access };
    });
    expect(clientOf('a')).toBe(clientOf('a'));
    expect(clientOf('b')).toEqual({ access: 'access-b' });
    expect(clientOf('c')).toBeUndefined();
    expect(made).toEqual(['access-a', 'access-b']);
  });
});
