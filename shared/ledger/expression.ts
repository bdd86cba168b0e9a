/**
 * A small builder for DynamoDB update and condition expressions: every attribute name and value goes
 * through a placeholder, so reserved words (state, ttl, ...) and map keys from the outside are safe.
 */
export class Expression {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private readonly sets: string[] = [];
  private readonly removes: string[] = [];
  private readonly adds: string[] = [];
  private readonly deletes: string[] = [];
  private nameCount = 0;
  private valueCount = 0;
  private readonly nameIds = new Map<string, string>();

  /** Placeholder for an attribute path; a path is a name or [name, mapKey, ...]. */
  path(path: string | readonly string[]): string {
    const parts = typeof path === 'string' ? [path] : path;
    return parts
      .map((p) => {
        let id = this.nameIds.get(p);
        if (!id) {
          id = `#n${this.nameCount++}`;
          this.nameIds.set(p, id);
          this.names[id] = p;
        }
        return id;
      })
      .join('.');
  }

  value(v: unknown): string {
    const id = `:v${this.valueCount++}`;
    this.values[id] = v;
    return id;
  }

  set(path: string | readonly string[], v: unknown): this {
    if (v !== undefined) this.sets.push(`${this.path(path)} = ${this.value(v)}`);
    return this;
  }

  /** `set` of each named field of `source` (fields that are undefined are left alone). */
  setFrom<T extends object>(source: T, fields: readonly (keyof T & string)[]): this {
    for (const f of fields) this.set(f, source[f]);
    return this;
  }

  /** `set` of every field of `fields` (fields that are undefined are left alone). */
  setAll(fields: Record<string, unknown>): this {
    for (const [f, v] of Object.entries(fields)) this.set(f, v);
    return this;
  }

  setIfAbsent(path: string, v: unknown): this {
    const p = this.path(path);
    this.sets.push(`${p} = if_not_exists(${p}, ${this.value(v)})`);
    return this;
  }

  /** Appends to a list (creating it when absent). */
  appendToList(path: string, values: readonly unknown[]): this {
    if (values.length === 0) return this;
    const p = this.path(path);
    this.sets.push(`${p} = list_append(if_not_exists(${p}, ${this.value([])}), ${this.value(values)})`);
    return this;
  }

  increment(path: string, by = 1): this {
    const p = this.path(path);
    this.sets.push(`${p} = if_not_exists(${p}, ${this.value(0)}) + ${this.value(by)}`);
    return this;
  }

  remove(...paths: string[]): this {
    for (const p of paths) this.removes.push(this.path(p));
    return this;
  }

  /** Adds elements to a string set (creating it when absent). */
  addToSet(path: string, elements: string[]): this {
    if (elements.length > 0) this.adds.push(`${this.path(path)} ${this.value(new Set(elements))}`);
    return this;
  }

  deleteFromSet(path: string, elements: string[]): this {
    if (elements.length > 0) this.deletes.push(`${this.path(path)} ${this.value(new Set(elements))}`);
    return this;
  }

  update(): string {
    const clauses: string[] = [];
    if (this.sets.length) clauses.push(`SET ${this.sets.join(', ')}`);
    if (this.removes.length) clauses.push(`REMOVE ${this.removes.join(', ')}`);
    if (this.adds.length) clauses.push(`ADD ${this.adds.join(', ')}`);
    if (this.deletes.length) clauses.push(`DELETE ${this.deletes.join(', ')}`);
    return clauses.join(' ');
  }
}
