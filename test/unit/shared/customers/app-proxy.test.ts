import { describe, expect, it } from 'vitest';
import { appProxyMessage, signAppProxyQuery, verifyAppProxy } from '../../../../shared/customers/index.js';

// Shopify's worked examples (shopify.dev, "Authenticate app proxies", shared secret `hush`): see
// test/fixtures/shopify/SOURCES.md. Both signatures are Shopify's, not computed here.
const LOGGED_IN =
  'extra=1&extra=2&shop=shop-name.myshopify.com&logged_in_customer_id=1&path_prefix=%2Fapps%2Fawesome_reviews&timestamp=1317327555&signature=4c68c8624d737112c91818c11017d24d334b524cb5c2b8ba08daa056f7395ddb';
const ANONYMOUS =
  'extra=1&extra=2&shop=shop-name.myshopify.com&logged_in_customer_id=&path_prefix=%2Fapps%2Fawesome_reviews&timestamp=1317327555&signature=e072b6d7e6622d85912a5214b860d3100dc1e73d9bc29f43796ac8c9ff8093cb';
const SIGNED_AT_MS = 1317327555 * 1000;

describe('Shopify App Proxy signature', () => {
  it('builds the message Shopify documents: sorted pairs, repeated keys joined by commas, values decoded', () => {
    expect(appProxyMessage(new URLSearchParams(LOGGED_IN))).toBe(
      'extra=1,2logged_in_customer_id=1path_prefix=/apps/awesome_reviewsshop=shop-name.myshopify.comtimestamp=1317327555',
    );
  });

  it("accepts Shopify's own signed example for a logged-in customer", () => {
    expect(verifyAppProxy(new URLSearchParams(LOGGED_IN), ['hush'], SIGNED_AT_MS)).toBeNull();
  });

  it("accepts Shopify's own signed example with nobody logged in", () => {
    expect(verifyAppProxy(new URLSearchParams(ANONYMOUS), ['hush'], SIGNED_AT_MS)).toBeNull();
  });

  it('accepts a signature made with any of the current secrets (rotation)', () => {
    expect(verifyAppProxy(new URLSearchParams(LOGGED_IN), ['new-secret', 'hush'], SIGNED_AT_MS)).toBeNull();
  });

  it('refuses the example under another secret', () => {
    expect(verifyAppProxy(new URLSearchParams(LOGGED_IN), ['shh'], SIGNED_AT_MS)?.kind).toBe('invalid_signature');
  });

  it('refuses a request whose customer was changed after signing', () => {
    const forged = LOGGED_IN.replace('logged_in_customer_id=1', 'logged_in_customer_id=2');
    expect(verifyAppProxy(new URLSearchParams(forged), ['hush'], SIGNED_AT_MS)?.kind).toBe('invalid_signature');
  });

  it('refuses a request with a parameter added after signing', () => {
    expect(verifyAppProxy(new URLSearchParams(`${LOGGED_IN}&member=m-1`), ['hush'], SIGNED_AT_MS)?.kind).toBe('invalid_signature');
  });

  it('refuses a request without a signature as missing', () => {
    const unsigned = LOGGED_IN.replace(/&signature=[0-9a-f]+/, '');
    expect(verifyAppProxy(new URLSearchParams(unsigned), ['hush'], SIGNED_AT_MS)?.kind).toBe('missing_signature');
  });

  it('refuses a genuine signature more than 5 minutes old', () => {
    expect(verifyAppProxy(new URLSearchParams(LOGGED_IN), ['hush'], SIGNED_AT_MS + 301_000)?.kind).toBe('stale_timestamp');
  });

  it('accepts a genuine signature 5 minutes old', () => {
    expect(verifyAppProxy(new URLSearchParams(LOGGED_IN), ['hush'], SIGNED_AT_MS + 300_000)).toBeNull();
  });

  it('signs what it verifies', () => {
    const query = new URLSearchParams('shop=a.myshopify.com&logged_in_customer_id=7&timestamp=1700000000&token=t&member=m');
    query.set('signature', signAppProxyQuery(query, 'k'));
    expect(verifyAppProxy(query, ['k'], 1_700_000_000_000)).toBeNull();
  });
});
