/**
 * The headers kept with an entry: an allow-list of what replay and diagnosis need, never what a
 * proxy or a client might add (credentials, session tokens, caller addresses). The sender's own
 * `x-shopify-*` / `x-square-*` headers (topic, signature, ids, shop, version, times), the POS
 * signature, `content-type` and `user-agent`. Shopify sends no credential in its own namespace, but a
 * caller may: names that read as one are dropped even there (`x-shopify-access-token`).
 */
const SENDER_HEADER = /^(?:x-shopify-[a-z0-9-]{1,40}|x-square-[a-z0-9-]{1,40}|x-signature|content-type|user-agent)$/;
const CREDENTIAL_WORD = /token|secret|auth|cookie|session|password|credential|api-key/;

export function keptHeaders(headers: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter((e): e is [string, string] => {
      const name = e[0].toLowerCase();
      return typeof e[1] === 'string' && SENDER_HEADER.test(name) && !CREDENTIAL_WORD.test(name);
    }),
  );
}

/** The topic header (any case), as kept. */
export function topicOf(headers: Readonly<Record<string, string>>): string | undefined {
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === 'x-shopify-topic') return value;
  return undefined;
}
