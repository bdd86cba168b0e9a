import { describe, expect, it } from 'vitest';
import { adminClientFromEnv, REDEMPTION_ADMIN_ENV, redemptionDepsFromEnv } from '../../../../shared/redemption/index.js';
import { loadSourceSettings, loadSources } from '../../../../shared/sources/index.js';

/** What a redeeming function refuses at its start. */
describe('a redeeming function at its start', () => {
  const noReader = () => {
    throw new Error('no secret is read');
  };

  it('refuses an Admin API version older than 2025-10, naming the variable and why', () => {
    const env = {
      [REDEMPTION_ADMIN_ENV]: JSON.stringify({
        shopDomain: 'a.myshopify.com',
        origin: 'http://127.0.0.1:1',
        accessToken: 't',
        apiVersion: '2025-04',
      }),
    };
    expect(() => adminClientFromEnv(env, noReader)).toThrow(/REDEMPTION_SHOPIFY_ADMIN: apiVersion 2025-04 is older than 2025-10/);
  });

  it('refuses a redeeming source whose apiVersion is older than 2025-10 (SOURCES_CONFIG, as npm start gives it)', () => {
    const config = JSON.stringify({ shopify: { apiVersion: '2024-10', redemption: { enabled: true } } });
    expect(() => loadSources(config)).toThrow(/apiVersion 2024-10 is older than 2025-10/);
  });
});

/** Which other sources' provisional sales the points page lists (issue 53: a till's `days`). */
describe('the points page’s other sources', () => {
  const depsOf = (smaregi: Record<string, unknown>) => {
    const sources = loadSourceSettings(
      JSON.stringify({ shopify: { apiVersion: '2026-10', redemption: { enabled: true } }, smaregi: { contractId: 'c1', ...smaregi } }),
    );
    const env = { [REDEMPTION_ADMIN_ENV]: JSON.stringify({ shopDomain: 'a.myshopify.com', accessToken: 't' }), LEDGER_TABLE: 'ledger' };
    return redemptionDepsFromEnv(env, sources, 'shopify', { openapi: {} as never, ledger: {} as never });
  };

  it('lists a Smaregi source earning days after its sales, by how the member holds its customer', () => {
    expect(depsOf({ externalKey: 'card', memberLookup: 'unique_id', earnAfter: { days: 14 } })?.pendingElsewhere).toEqual([
      { source: 'smaregi', externalKey: 'card', memberLookup: 'unique_id' },
    ]);
  });

  it('lists no Smaregi source earning at its sales', () => {
    expect(depsOf({ externalKey: 'card' })?.pendingElsewhere).toEqual([]);
  });
});
