import * as z from 'zod';
import { ConfigurationError, type SecretReader } from '../config/index.js';
import { parseJsonOrUndefined } from '../text/index.js';

/** The Admin API secret: `{"access_token": "shpat_…"}` (the shop domain is a stage setting). */
const AdminSecret = z.object({ access_token: z.string().min(1) });

export class ShopifyAdminSecretError extends ConfigurationError<'invalid_admin_secret'> {
  override name = 'ShopifyAdminSecretError';
  constructor(secretId: string) {
    // Never the value: only where it is and what it should hold.
    super('invalid_admin_secret', `secret ${secretId} must hold {"access_token": "<Admin API access token>"}`);
  }
}

/** The access token from Secrets Manager, through the shared cached reader. */
export function secretsManagerAccessToken(secretId: string, reader: SecretReader): () => Promise<string> {
  return async () => {
    const text = await reader.read(secretId);
    // Not JSON reads as undefined and fails the schema: the same error, never quoting the secret.
    const parsed = AdminSecret.safeParse(parseJsonOrUndefined(text));
    if (!parsed.success) throw new ShopifyAdminSecretError(secretId);
    return parsed.data.access_token;
  };
}
