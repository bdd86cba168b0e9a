/**
 * Every text that comes from outside and is kept (error messages, log fields, the ledger's
 * `lastError` and `reason`) is cut to about 1 KB: a hostile or broken upstream must not be able to
 * grow a log line, an SQS message or a DynamoDB item (400 KB limit) without bound.
 */
export const MAX_TEXT_CHARS = 1024;

/** `text` as is when short enough, else its head and how much was cut, `max` characters at most. */
export function capText(text: string, max = MAX_TEXT_CHARS): string {
  if (text.length <= max) return text;
  const note = (cut: number) => `… (${cut} characters cut)`;
  // The note's length depends on the number it carries: size it for the worst case.
  const keep = Math.max(0, max - note(text.length).length);
  // Never end on the first half of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(keep - 1)) ? keep - 1 : keep;
  return text.slice(0, end) + note(text.length - end);
}

/** A log line's extra fields with every string value capped (nested values are left to the logger). */
export function capFields(fields: Record<string, unknown>, max = MAX_TEXT_CHARS): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) out[key] = typeof value === 'string' ? capText(value, max) : value;
  return out;
}
