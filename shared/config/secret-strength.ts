/**
 * Least length of a webhook signing secret. An HMAC is only as strong as its key: a short secret
 * (a demo placeholder, a word) can be guessed offline from one captured delivery. The POS secret
 * is ours to generate (`openssl rand -hex 32`): 32 characters at least, and so is the value of
 * Smaregi's custom webhook header (Smaregi signs nothing: that value is all that authenticates). Other senders issue their
 * own (Shopify's app secrets are 32+ characters); 16 refuses only placeholders.
 */
export const MIN_WEBHOOK_SECRET_CHARS: Readonly<Record<string, number>> = { pos: 32, smaregi: 32 };
export const DEFAULT_MIN_WEBHOOK_SECRET_CHARS = 16;

/** The minimum for a source kind (`pos`, `shopify`, ...). */
export function minWebhookSecretChars(kind: string | undefined): number {
  return (
    (kind !== undefined && Object.hasOwn(MIN_WEBHOOK_SECRET_CHARS, kind) ? MIN_WEBHOOK_SECRET_CHARS[kind] : undefined) ??
    DEFAULT_MIN_WEBHOOK_SECRET_CHARS
  );
}
