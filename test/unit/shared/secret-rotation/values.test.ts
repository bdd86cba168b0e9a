import { describe, expect, it } from 'vitest';
import { RotationError, rotatedValue } from '../../../../shared/secret-rotation/index.js';

const shopify = { kind: 'webhook', source: 'shopify', minLength: 16 } as const;
const openapi = { kind: 'openapi' } as const;
const creds = (extra: Record<string, string> = {}) =>
  JSON.stringify({ base_url: 'https://members.example.com', client_id: 'c1', client_secret: 'old-client-secret', ...extra });

describe('rotatedValue', () => {
  it('puts the new webhook secret first and keeps the old ones after it', () => {
    const v = rotatedValue('{"secrets":["old-secret-0000001"]}', 'id', shopify, 'add', 'new-secret-0000002');
    expect(JSON.parse(v.text ?? '')).toEqual({ secrets: ['new-secret-0000002', 'old-secret-0000001'] });
    expect(v.count).toBe(2);
  });

  it('fills the empty secret the stack creates', () => {
    const v = rotatedValue('{"secrets":[]}', 'id', shopify, 'add', 'new-secret-0000002');
    expect(JSON.parse(v.text ?? '')).toEqual({ secrets: ['new-secret-0000002'] });
  });

  it('writes nothing when the new secret already comes first (a second run)', () => {
    expect(rotatedValue('{"secrets":["new-secret-0000002","old"]}', 'id', shopify, 'add', 'new-secret-0000002').text).toBeUndefined();
  });

  it('retires every webhook secret but the first, and writes nothing when only one is left', () => {
    expect(JSON.parse(rotatedValue('{"secrets":["a","b","c"]}', 'id', shopify, 'retire').text ?? '')).toEqual({ secrets: ['a'] });
    expect(rotatedValue('{"secrets":["a"]}', 'id', shopify, 'retire')).toEqual({ text: undefined, count: 1 });
  });

  it('refuses a secret that is not the expected JSON, naming the secret and not its text', () => {
    const run = () => rotatedValue('not-json-super-secret', 'loyalty-bridge/x/webhook/shopify', shopify, 'add', 'new-secret-0000002');
    expect(run).toThrow(RotationError);
    expect(run).toThrow(/loyalty-bridge\/x\/webhook\/shopify/);
    expect(run).not.toThrow(/super-secret/);
  });

  it('sets next_client_secret beside the Open API client secret, and promotes it on retire', () => {
    const added = rotatedValue(creds(), 'id', openapi, 'add', 'new-client-secret');
    expect(JSON.parse(added.text ?? '')).toMatchObject({
      client_secret: 'old-client-secret',
      next_client_secret: 'new-client-secret',
      client_id: 'c1',
    });
    const retired = rotatedValue(added.text ?? '', 'id', openapi, 'retire');
    expect(JSON.parse(retired.text ?? '')).toEqual({
      base_url: 'https://members.example.com',
      client_id: 'c1',
      client_secret: 'new-client-secret',
    });
  });

  it('refuses the current client secret as the new one', () => {
    expect(() => rotatedValue(creds(), 'id', openapi, 'add', 'old-client-secret')).toThrow(/is the current one/);
  });

  it('refuses a second client secret while one is pending, so the one the service may use is kept', () => {
    expect(() => rotatedValue(creds({ next_client_secret: 'pending-one' }), 'id', openapi, 'add', 'another-one')).toThrow(/pending/);
  });
});
