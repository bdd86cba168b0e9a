/**
 * Values by key, each loaded by one call at a time however many callers wait (single flight). The
 * cache only stores: each caller says whether the stored value will do (a TTL, a renewal time, a
 * forced refresh), so one piece serves every expiry rule.
 */
export interface SingleFlightCache<V extends object> {
  /** The stored value of `key`, usable or not: the hot path, without a promise. */
  peek(key: string): V | undefined;
  /**
   * The load of `key` in flight if there is one (every caller shares it, whatever it asked); else the
   * stored value if `usable` accepts it; else a new `load`. Its value is stored; a failed load is not,
   * and leaves the previous value stored, so the next caller tries again.
   */
  get(key: string, usable: (stored: V) => boolean, load: () => Promise<V>): Promise<V>;
  /** Forgets the stored value of `key` if `matches` accepts it (a load in flight is left alone). */
  drop(key: string, matches: (stored: V) => boolean): void;
  /** Forgets every key. A load in flight still answers its callers but stores nothing. */
  clear(): void;
}

interface Entry<V> {
  value?: V;
  pending?: Promise<V>;
}

export function createSingleFlightCache<V extends object>(): SingleFlightCache<V> {
  const entries = new Map<string, Entry<V>>();
  return {
    peek: (key) => entries.get(key)?.value,
    get(key, usable, load) {
      let entry = entries.get(key);
      if (!entry) {
        entry = {};
        entries.set(key, entry);
      }
      if (entry.pending) return entry.pending;
      if (entry.value !== undefined && usable(entry.value)) return Promise.resolve(entry.value);
      // The entry itself, not the key: after clear() the load must not store into a newer entry.
      const e = entry;
      e.pending = load().then(
        (value) => {
          e.value = value;
          e.pending = undefined;
          return value;
        },
        (err: unknown) => {
          e.pending = undefined;
          throw err;
        },
      );
      return e.pending;
    },
    drop(key, matches) {
      const entry = entries.get(key);
      if (entry?.value !== undefined && matches(entry.value)) entry.value = undefined;
    },
    clear: () => entries.clear(),
  };
}
