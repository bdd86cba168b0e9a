import type * as z from 'zod';
import { parseJsonOrUndefined } from '../text/index.js';
import type { SecretReader } from './secret-reader.js';

/**
 * What the shop-side API clients (Square Orders, Smaregi) share in reading their access from the
 * environment: one client per configured source, made on first use and kept for the container's life
 * (its token too), and a JSON secret read against its schema without ever showing its text.
 */
export function perSourceClients<A, C>(access: Record<string, A>, make: (access: A) => C): (source: string) => C | undefined {
  const clients = new Map<string, C>();
  return (source) => {
    const a = access[source];
    if (!a) return undefined;
    let client = clients.get(source);
    if (!client) {
      client = make(a);
      clients.set(source, client);
    }
    return client;
  };
}

/** The secret's JSON as `schema` reads it; `unreadable` when it cannot be read, `malformed` when it does not hold that. */
export async function readJsonSecret<T>(
  reader: SecretReader,
  secretArn: string,
  schema: z.ZodType<T>,
  errors: { unreadable: () => Error; malformed: () => Error },
): Promise<T> {
  let text: string;
  try {
    text = await reader.read(secretArn);
  } catch {
    throw errors.unreadable();
  }
  const parsed = schema.safeParse(parseJsonOrUndefined(text));
  // Never the secret's text: only what is wrong with it.
  if (!parsed.success) throw errors.malformed();
  return parsed.data;
}
