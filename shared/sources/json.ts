import { parse } from 'lossless-json';
import type { SourceError } from './types.js';

const INTEGER = /^-?\d+$/;
/** lossless-json's own message for a key given twice with different values (lossless-json 4). */
const DUPLICATE_KEY = /^Duplicate key '(.*)' encountered at position (\d+)$/s;
const MAX_KEY_SHOWN = 64;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Integers that a JavaScript number cannot hold exactly (Shopify's 64-bit ids) are kept as their
 * digit string, so `820982911946154508` stays `"820982911946154508"`, never `820982911946154500`.
 * Other numbers stay numbers, however long: as strings they would pass for decimal-string amounts,
 * which must never be JSON numbers.
 */
function parseNumber(text: string): number | string {
  const n = Number(text);
  return INTEGER.test(text) && !Number.isSafeInteger(n) ? text : n;
}

/**
 * A JSON number kept as its text (`89.99`, `0.0`, `199`), for senders that write amounts as numbers
 * (Shopify's `refund_line_items[].subtotal`): read exactly from the text, never through a float.
 */
export class JsonNumber {
  constructor(readonly text: string) {}
}

function parseExactNumber(text: string): number | string | JsonNumber {
  const n = Number(text);
  if (INTEGER.test(text)) return Number.isSafeInteger(n) ? n : text;
  return new JsonNumber(text);
}

export interface JsonBodyOptions {
  /** Non-integer numbers come back as `JsonNumber` (their text) instead of a float. */
  readonly exactNumbers?: boolean;
}

/** Parses a JSON body without losing digits; errors carry a position, never body content. */
export function parseJsonBody(
  rawBody: Buffer,
  options: JsonBodyOptions = {},
): { ok: true; value: unknown } | { ok: false; error: SourceError } {
  let text: string;
  try {
    text = utf8.decode(rawBody);
  } catch {
    return { ok: false, error: { kind: 'malformed_json', message: 'body is not valid UTF-8' } };
  }
  try {
    return { ok: true, value: parse(text, null, options.exactNumbers ? parseExactNumber : parseNumber) };
  } catch (e) {
    const message = e instanceof Error ? e.message : '';
    const duplicate = DUPLICATE_KEY.exec(message);
    if (duplicate) {
      // Valid JSON, but which value would be meant? Name the key (capped: it is the sender's text).
      const key = duplicate[1] ?? '';
      const shown =
        JSON.stringify(key.length > MAX_KEY_SHOWN ? key.slice(0, MAX_KEY_SHOWN) : key) + (key.length > MAX_KEY_SHOWN ? '…' : '');
      return { ok: false, error: { kind: 'malformed_json', message: `duplicate key ${shown} at position ${duplicate[2]}` } };
    }
    // lossless-json quotes the offending characters in its messages: keep only the position.
    const position = /position (\d+)/.exec(message)?.[1];
    const where = position === undefined ? '' : ` at position ${position}`;
    return { ok: false, error: { kind: 'malformed_json', message: `body is not valid JSON${where}` } };
  }
}
