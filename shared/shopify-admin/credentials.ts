import * as z from 'zod';
import type { SecretReader } from '../config/secret-reader.js';

/** The Admin API secret: `{"access_token": "shpat_…"}` (the shop domain is a stage setting). */
const AdminSecret = z.object({ access_token: z.string().min(1) });

export class ShopifyAdminSecretError extends Error {
  override readonly name = 'ShopifyAdminSecretError';
  readonly kind = 'invalid_admin_secret' as const;
  constructor(secretId: string) {
    // Never the value: only where it is and what it should hold.
    super(`secret ${secretId} must hold {"access_token": "<Admin API access token>"}`);
  }
}

/** The access token from Secrets Manager, through the shared cached reader. */
export function secretsManagerAccessToken(secretId: string, reader: SecretReader): () => Promise<string> {
  return async () => {
    const text = await reader.read(secretId);
    let parsed;
    try {
      parsed = AdminSecret.safeParse(JSON.parse(text));
    } catch {
      throw new ShopifyAdminSecretError(secretId);
    }
    if (!parsed.success) throw new ShopifyAdminSecretError(secretId);
    return parsed.data.access_token;
  };
}
