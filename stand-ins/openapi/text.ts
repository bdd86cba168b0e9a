/**
 * Text helpers for names and lengths the Open API fixes: lengths count characters (Unicode code points, as
 * PHP's mb_strlen does), not UTF-16 units, and configured names are looked up as own properties only, so
 * `toString` or `__proto__` is a name like any other.
 */

/** Number of code points; a lone surrogate counts as one. */
export function charCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** True when `s` has more than `max` characters. UTF-16 length bounds the count, so most strings need no scan. */
export const longerThan = (s: string, max: number): boolean => s.length > max && charCount(s) > max;

/** The value configured under `name`, never one inherited from Object.prototype. */
export function ownValue<T>(record: Record<string, T>, name: string): T | undefined {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

/** Sets `key` as an own, enumerable property even when it is `__proto__` (plain assignment would set the prototype). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
