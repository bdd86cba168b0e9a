/**
 * Calculated query cost, after Shopify's published rules (shopify.dev "GraphQL Admin API rate
 * limits"): a scalar or enum costs 0, an object 1, a connection 2 plus `first` times the cost of one
 * node. Enough of GraphQL is read here to apply them to the documents the client sends (fields,
 * arguments, nested selections); fragments and directives are not supported.
 */

interface Field {
  name: string;
  args: Record<string, string>;
  children: Field[];
}

const TOKEN = /\s*(\.\.\.|[{}():,!$=[\]]|"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|-?\d+(?:\.\d+)?)/y;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  const source = text.replace(/#[^\n]*/g, '');
  while (TOKEN.lastIndex < source.length) {
    const start = TOKEN.lastIndex;
    const m = TOKEN.exec(source);
    if (!m) {
      if (/^\s*$/.test(source.slice(start))) break;
      throw new Error(`cannot read the document near "${source.slice(start, start + 20)}"`);
    }
    tokens.push(m[1]!);
  }
  return tokens;
}

/** The top-level selection of the document's (single) operation. */
export function parseSelection(text: string): Field[] {
  const tokens = tokenize(text);
  let i = 0;
  // Skip `query Name(...)` up to the first selection set.
  let depth = 0;
  while (i < tokens.length && !(tokens[i] === '{' && depth === 0)) {
    if (tokens[i] === '(') depth += 1;
    if (tokens[i] === ')') depth -= 1;
    i += 1;
  }
  const selection = (): Field[] => {
    if (tokens[i] !== '{') throw new Error('expected {');
    i += 1;
    const fields: Field[] = [];
    while (tokens[i] !== '}') {
      if (i >= tokens.length) throw new Error('unterminated selection');
      let name = tokens[i++]!;
      if (tokens[i] === ':') {
        i += 1;
        name = tokens[i++]!; // alias: the field is what counts
      }
      const args: Record<string, string> = {};
      if (tokens[i] === '(') {
        i += 1;
        while (tokens[i] !== ')') {
          const arg = tokens[i++]!;
          if (tokens[i++] !== ':') throw new Error(`expected : after ${arg}`);
          let value = tokens[i++]!;
          if (value === '$') value = `$${tokens[i++]}`;
          args[arg] = value;
          if (tokens[i] === ',') i += 1;
        }
        i += 1;
      }
      const children = tokens[i] === '{' ? selection() : [];
      fields.push({ name, args, children });
      if (tokens[i] === ',') i += 1;
    }
    i += 1;
    return fields;
  };
  return selection();
}

function firstOf(field: Field, variables: Record<string, unknown>): number | undefined {
  const raw = field.args.first;
  if (raw === undefined) return undefined;
  const value = raw.startsWith('$') ? variables[raw.slice(1)] : Number(raw);
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

function fieldCost(field: Field, variables: Record<string, unknown>, counts?: ReadonlyMap<Field, number>): number {
  if (field.children.length === 0) return 0;
  const first = firstOf(field, variables);
  const sum = (fields: Field[]) => fields.reduce((n, f) => n + fieldCost(f, variables, counts), 0);
  if (first === undefined) return 1 + sum(field.children);
  const n = counts?.get(field) ?? first;
  const node = field.children.find((c) => c.name === 'nodes' || c.name === 'edges');
  // A connection: its nodes times the count (pageInfo is not per node); a list of objects: each one.
  return node ? 2 + n * fieldCost(node, variables, counts) : 2 + n * (1 + sum(field.children));
}

/** Requested cost of a document with its variables. */
export function requestedCost(fields: Field[], variables: Record<string, unknown>): number {
  return fields.reduce((n, f) => n + fieldCost(f, variables), 0);
}

/** Actual cost: the same rules with the top-level connection's returned count instead of `first`. */
export function actualCost(fields: Field[], variables: Record<string, unknown>, returned: number): number {
  const top = fields[0];
  const counts = new Map<Field, number>(top ? [[top, returned]] : []);
  return fields.reduce((n, f) => n + fieldCost(f, variables, counts), 0);
}

export type { Field };
