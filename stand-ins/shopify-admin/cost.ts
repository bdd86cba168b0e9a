/**
 * Calculated query cost, after Shopify's published rules (shopify.dev "GraphQL Admin API rate
 * limits"): a scalar or enum costs 0, an object 1, a connection 2 plus `first` times the cost of one
 * node, applied to the documents the client sends (fields,
 * arguments, nested selections: document.ts reads them with graphql-js).
 */

interface Field {
  name: string;
  args: Record<string, string>;
  children: Field[];
  /** An inline fragment (`... on DiscountCodeBasic { ... }`): its type condition; `name` is then empty. */
  on?: string;
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
  // A fragment is no object of its own: its fields cost what they cost on the object they select from.
  if (field.on !== undefined) return sum(field.children);
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
