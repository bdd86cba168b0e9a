import { describe, expect, it } from 'vitest';
import { header } from '../../../../shared/sources/headers.js';

describe('header', () => {
  it('prefers the X- header over an unprefixed one of the same name, whichever comes first', () => {
    expect(header({ signature: 'sig1=:rfc9421:', 'x-signature': 't=1,v1=ab' }, 'X-Signature')).toBe('t=1,v1=ab');
    expect(header({ 'x-signature': 't=1,v1=ab', signature: 'sig1=:rfc9421:' }, 'X-Signature')).toBe('t=1,v1=ab');
  });

  it('falls back to the unprefixed name in any case when the X- header is absent', () => {
    expect(header({ 'Shopify-Hmac-Sha256': ' abc= ' }, 'X-Shopify-Hmac-Sha256')).toBe('abc=');
  });
});
