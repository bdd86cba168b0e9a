/**
 * A small seeded PRNG (mulberry32) and helpers: a chaos run must be reproducible from its seed alone,
 * and Math.random cannot be seeded.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  /** true with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A string of `length` decimal digits, first digit not 0. */
  digits(length: number): string;
  /** An independent stream derived from this one (so adding draws in one place does not shift another). */
  fork(label: string): Random;
}

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a, to turn a label into a seed offset. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export function createRandom(seed: number): Random {
  const next = mulberry32(seed);
  const random: Random = {
    next,
    int(min, max) {
      return min + Math.floor(next() * (max - min + 1));
    },
    chance(p) {
      return next() < p;
    },
    pick(items) {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
    digits(length) {
      let out = String(1 + Math.floor(next() * 9));
      while (out.length < length) out += String(Math.floor(next() * 10));
      return out;
    },
    fork(label) {
      return createRandom((seed ^ hash32(label)) >>> 0);
    },
  };
  return random;
}
