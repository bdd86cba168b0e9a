import { randomBytes } from 'node:crypto';

/**
 * The stand-in's client-credentials grant, as Shopify's `POST /admin/oauth/access_token` answers it
 * (shopify.dev "Using the client credentials grant"): form-encoded `grant_type=client_credentials`,
 * `client_id`, `client_secret`; 200 `{access_token, scope, expires_in}`. Tokens expire on the
 * stand-in's clock, so a test can move past a renewal.
 */

export interface ClientCredentialsSettings {
  clientId: string;
  clientSecret: string;
  /** Lifetime of an issued token (Shopify's: about 24 h, `expires_in` 86399). */
  tokenTtlSeconds?: number;
  scope?: string;
}

export interface TokenIssuer {
  /** The answer to a grant request (its form-encoded body). */
  grant(body: string): { status: number; body: unknown };
  /** Whether a token was issued here and has not expired or been revoked. */
  valid(token: string): boolean;
  /** Every issued token stops working (a rotated client secret, an uninstalled app). */
  revokeAll(): void;
  /** How many tokens were granted. */
  grants(): number;
}

export function createTokenIssuer(settings: ClientCredentialsSettings, now: () => number): TokenIssuer {
  const ttl = settings.tokenTtlSeconds ?? 86_399;
  const issued = new Map<string, number>();
  let grants = 0;
  return {
    grant(body) {
      const form = new URLSearchParams(body);
      if (form.get('grant_type') !== 'client_credentials') {
        return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'grant_type must be client_credentials' } };
      }
      if (form.get('client_id') !== settings.clientId || form.get('client_secret') !== settings.clientSecret) {
        return { status: 400, body: { error: 'invalid_client', error_description: 'Client authentication failed' } };
      }
      const token = `shpat_${randomBytes(16).toString('hex')}`;
      issued.set(token, now() + ttl * 1000);
      grants += 1;
      return { status: 200, body: { access_token: token, scope: settings.scope ?? 'read_orders', expires_in: ttl } };
    },
    valid(token) {
      const until = issued.get(token);
      return until !== undefined && now() < until;
    },
    revokeAll() {
      issued.clear();
    },
    grants: () => grants,
  };
}
