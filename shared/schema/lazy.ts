import type * as z from 'zod';

/**
 * A module-level zod schema built on its first use instead of at import. Building zod schemas is most
 * of what loading the worker costs (issue 40: some 1,700 zod objects built before the first event,
 * most of them for senders the event never touches), so each module's schemas wait until something
 * parses with them, reads their shape or builds on them. The value stands in for the schema itself:
 * `Schema.parse(...)`, `Other.extend(...)`, `z.object({ field: Schema })` and `z.infer<typeof Schema>`
 * work as before, and the schema is built once, by the first of them. Marked free of side effects, so a
 * bundler drops a schema nothing uses, as it does with zod's own constructors.
 */
export /* @__NO_SIDE_EFFECTS__ */ function lazySchema<T extends z.ZodType>(build: () => T): T {
  let built: T | undefined;
  const schema = (): T => {
    built ??= build();
    return built;
  };
  // Every operation goes to the built schema. The target stays an empty, extensible object, so the
  // proxy's invariants hold; a property is reported configurable because the target does not have it.
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(schema(), key),
    set: (_, key, value) => Reflect.set(schema(), key, value),
    has: (_, key) => Reflect.has(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(schema(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(schema(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
}

/**
 * `lazySchema` for an object schema, written so that its shape keeps its lines:
 * `lazyObject(z.object, () => ({ ... }))` is `lazySchema(() => z.object({ ... }))`.
 */
export /* @__NO_SIDE_EFFECTS__ */ function lazyObject<S, T extends z.ZodType>(make: (shape: S) => T, shape: () => S): T {
  return lazySchema(() => make(shape()));
}
