import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { lazyObject, lazySchema } from '../../../../shared/schema/index.js';

describe('lazySchema', () => {
  it('builds the schema on first use, once', () => {
    let builds = 0;
    const Id = lazySchema(() => {
      builds += 1;
      return z.string().min(2);
    });
    expect(builds).toBe(0);
    expect(Id.parse('ab')).toBe('ab');
    expect(Id.safeParse('a').success).toBe(false);
    expect(builds).toBe(1);
  });

  it('reports the same issues as the schema built at once', () => {
    const eager = z.object({ id: z.string().min(2), n: z.number().int() });
    const lazy = lazySchema(() => z.object({ id: z.string().min(2), n: z.number().int() }));
    const bad = { id: 'a', n: 1.5 };
    expect(lazy.safeParse(bad).error?.issues).toEqual(eager.safeParse(bad).error?.issues);
  });

  it('composes: inside other schemas, extended, in a discriminated union, made optional', () => {
    const Ref = lazyObject(z.object, () => ({ id: z.string() }));
    const Sale = lazyObject(z.object, () => ({ type: z.literal('sale'), ref: Ref }));
    const Refund = lazySchema(() => Sale.extend({ type: z.literal('refund'), amount: z.number() }));
    const Event = lazySchema(() => z.discriminatedUnion('type', [Sale, Refund]));
    expect(Event.parse({ type: 'refund', ref: { id: 'r' }, amount: 3 })).toEqual({ type: 'refund', ref: { id: 'r' }, amount: 3 });
    expect(Event.safeParse({ type: 'sale', ref: {} }).success).toBe(false);
    expect(Ref.optional().parse(undefined)).toBeUndefined();
    expect(Object.keys(Refund.shape)).toEqual(['type', 'ref', 'amount']);
  });

  it('is an instance of its schema class and keeps a loose object loose', () => {
    const Loose = lazyObject(z.looseObject, () => ({ id: z.string() }));
    expect(Loose).toBeInstanceOf(z.ZodObject);
    expect(Loose.parse({ id: 'a', extra: 1 })).toEqual({ id: 'a', extra: 1 });
  });
});
