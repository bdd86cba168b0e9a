import type { Field } from './cost.js';

/**
 * The shop's code discounts, as the GraphQL Admin API keeps an amount-off code discount
 * (`DiscountCodeNode` holding a `DiscountCodeBasic`), and the three documents the redemption uses
 * (shopify.dev, Admin GraphQL: `discountCodeBasicCreate(basicCodeDiscount: DiscountCodeBasicInput!)`,
 * `discountCodeDeactivate(id: ID!)`, `codeDiscountNodeByCode(code: String!)`), answered through the
 * document's own selection, inline fragments included (`codeDiscount { ... on DiscountCodeBasic { status } }`).
 * `status` is `DiscountStatus`: ACTIVE while usable, EXPIRED once deactivated (Shopify sets `endsAt` to
 * now) or past its end, SCHEDULED before its start. Codes are unique per shop, ignoring case, as Shopify's.
 * As strict as Shopify where the bridge relies on it: `minimumRequirement` (a subtotal) kept and answered
 * (`... on DiscountMinimumSubtotal { greaterThanOrEqualToSubtotal { amount } }`); `context` refused before
 * API version 2025-10 (it did not exist); an end before the start is `END_DATE_BEFORE_START_DATE`;
 * `asyncUsageCount` shows a use only after `usageLagMs`; a checkout (`apply`) takes the code only for its
 * customer, between its start and end, within its usage limit and at or above its minimum.
 */

export interface StoredDiscount {
  readonly number: number;
  readonly code: string;
  readonly title: string;
  readonly startsAt: string;
  endsAt: string | null;
  readonly usageLimit: number | null;
  readonly appliesOncePerCustomer: boolean;
  /** Customer gids the code is for; empty: everyone. */
  readonly customers: readonly string[];
  /** The fixed amount off, a decimal string in the shop's currency. */
  readonly amount: string;
  /** The least subtotal an order must reach to take the code (`minimumRequirement.subtotal`), or null. */
  readonly minimumSubtotal: string | null;
  readonly currency: string;
  usageCount: number;
  /** When each use was made (epoch ms): `asyncUsageCount` counts those older than the lag. */
  usedAt: number[];
  readonly createdAt: string;
}

export interface DiscountStore {
  list(): StoredDiscount[];
  byCode(code: string): StoredDiscount | undefined;
  /** An order that carried the code (its `discount_codes`): counted as Shopify's asyncUsageCount. */
  use(code: string): void;
  /**
   * A checkout taking the code, refused as Shopify's checkout refuses it (`not_found`, `other_customer`,
   * `not_started`, `ended`, `usage_limit`, `below_minimum`); taken, it is one use.
   */
  apply(code: string, order: { customerGid: string | null; subtotal: string }): CheckoutAnswer;
  /** What `apply` would answer, taking nothing (an order with several codes is checked whole before any is used). */
  check(code: string, order: { customerGid: string | null; subtotal: string }): CheckoutAnswer;
}

export type CheckoutAnswer =
  | { ok: true }
  | { ok: false; reason: 'not_found' | 'other_customer' | 'not_started' | 'ended' | 'usage_limit' | 'below_minimum' };

/** API versions before this have no `context` on discount inputs (`customerSelection` instead). */
export const CONTEXT_SINCE_VERSION = '2025-10';

type UserError = { field: string[] | null; code: string; message: string };
export type DiscountAnswer = { data: unknown } | { errors: { message: string }[] };

/** The operations the stand-in can be told to fail (test surface `POST /__shopify/faults`). */
export interface DiscountFault {
  /** The top-level field the fault applies to (`discountCodeBasicCreate`, ...). */
  field: string;
  /**
   * `http_503`: not executed, a 503 answer; `reset_after_commit`: executed, then the connection is
   * cut with no answer; `user_error`: refused with a userError (as a shop refusing for good would);
   * Shopify's transient failures: `internal_server_error` (not executed) and `internal_after_commit`
   * (executed) answer HTTP 200 with `errors[].extensions.code` INTERNAL_SERVER_ERROR;
   * `internal_user_error`: the userError code INTERNAL_ERROR, nothing made.
   */
  fault: 'http_503' | 'reset_after_commit' | 'user_error' | 'internal_server_error' | 'internal_after_commit' | 'internal_user_error';
  times: number;
}

const gidOf = (n: number) => `gid://shopify/DiscountCodeNode/${n}`;
const AMOUNT = /^\d{1,12}(?:\.\d{1,6})?$/;
const CUSTOMER_GID = /^gid:\/\/shopify\/Customer\/\d{1,20}$/;

export function createDiscountStore(now: () => number, currency: string, options: { usageLagMs?: number } = {}) {
  const lag = options.usageLagMs ?? 0;
  const discounts: StoredDiscount[] = [];
  let next = 1;
  const byCode = (code: string) => discounts.find((d) => d.code.toLowerCase() === code.toLowerCase());
  const status = (d: StoredDiscount) => {
    const t = now();
    if (d.endsAt !== null && Date.parse(d.endsAt) <= t) return 'EXPIRED';
    return Date.parse(d.startsAt) > t ? 'SCHEDULED' : 'ACTIVE';
  };

  /** The node as the schema has it: every field a document may select, `__typename` for fragments. */
  function node(d: StoredDiscount) {
    const customers = d.customers.map((id) => ({ __typename: 'Customer', id }));
    const selection =
      customers.length > 0 ? { __typename: 'DiscountCustomers', customers } : { __typename: 'DiscountCustomerAll', allCustomers: true };
    return {
      __typename: 'DiscountCodeNode',
      id: gidOf(d.number),
      codeDiscount: {
        __typename: 'DiscountCodeBasic',
        title: d.title,
        status: status(d),
        startsAt: d.startsAt,
        endsAt: d.endsAt,
        createdAt: d.createdAt,
        usageLimit: d.usageLimit,
        // Updated asynchronously at Shopify: a use shows only after the lag.
        asyncUsageCount: d.usedAt.filter((t) => t <= now() - lag).length,
        minimumRequirement:
          d.minimumSubtotal === null
            ? null
            : {
                __typename: 'DiscountMinimumSubtotal',
                greaterThanOrEqualToSubtotal: { __typename: 'MoneyV2', amount: d.minimumSubtotal, currencyCode: d.currency },
              },
        appliesOncePerCustomer: d.appliesOncePerCustomer,
        summary: `${d.amount} ${d.currency} off entire order`,
        codes: {
          nodes: [{ __typename: 'DiscountRedeemCode', code: d.code }],
          edges: [{ node: { __typename: 'DiscountRedeemCode', code: d.code } }],
        },
        codesCount: { count: 1 },
        customerSelection: selection,
        context: selection,
        customerGets: {
          __typename: 'DiscountCustomerGets',
          value: {
            __typename: 'DiscountAmount',
            amount: { __typename: 'MoneyV2', amount: d.amount, currencyCode: d.currency },
            appliesOnEachItem: false,
          },
          items: { __typename: 'AllDiscountItems', allItems: true },
        },
      },
    };
  }

  function create(input: Record<string, unknown>): { node?: ReturnType<typeof node>; userErrors: UserError[] } {
    const read = readInput(input, (code) => byCode(code) !== undefined);
    if ('userErrors' in read) return read;
    const stored: StoredDiscount = {
      ...read.value,
      number: next++,
      currency,
      usageCount: 0,
      usedAt: [],
      createdAt: new Date(now()).toISOString(),
    };
    discounts.push(stored);
    return { node: node(stored), userErrors: [] };
  }

  function deactivate(id: unknown): { node?: ReturnType<typeof node>; userErrors: UserError[] } {
    const found = discounts.find((d) => gidOf(d.number) === id);
    if (!found) return { userErrors: [{ field: ['id'], code: 'INVALID', message: 'Discount does not exist' }] };
    // Shopify ends a deactivated discount now (its endsAt), which makes it EXPIRED.
    if (status(found) !== 'EXPIRED') found.endsAt = new Date(now()).toISOString();
    return { node: node(found), userErrors: [] };
  }

  const store: DiscountStore = {
    list: () => discounts.map((d) => ({ ...d })),
    byCode: (code) => byCode(code),
    use(code) {
      const d = byCode(code);
      if (!d) return;
      d.usageCount += 1;
      d.usedAt.push(now());
    },
    apply(code, order) {
      const answer = store.check(code, order);
      if (answer.ok) store.use(code);
      return answer;
    },
    check(code, order) {
      const d = byCode(code);
      if (!d) return { ok: false, reason: 'not_found' };
      if (d.customers.length > 0 && (order.customerGid === null || !d.customers.includes(order.customerGid))) {
        return { ok: false, reason: 'other_customer' };
      }
      const t = now();
      if (Date.parse(d.startsAt) > t) return { ok: false, reason: 'not_started' };
      if (d.endsAt !== null && Date.parse(d.endsAt) <= t) return { ok: false, reason: 'ended' };
      if (d.usageLimit !== null && d.usageCount >= d.usageLimit) return { ok: false, reason: 'usage_limit' };
      if (d.minimumSubtotal !== null && Number(order.subtotal) < Number(d.minimumSubtotal)) return { ok: false, reason: 'below_minimum' };
      return { ok: true };
    },
  };
  return { store, create, deactivate, node, byCode };
}

export type Discounts = ReturnType<typeof createDiscountStore>;

type DiscountInput = Omit<StoredDiscount, 'number' | 'currency' | 'usageCount' | 'usedAt' | 'createdAt'>;

/** `DiscountCodeBasicInput` as the stand-in makes it (a fixed amount off everything), or its userErrors. */
function readInput(
  input: Record<string, unknown>,
  taken: (code: string) => boolean,
): { value: DiscountInput } | { userErrors: UserError[] } {
  const errors: UserError[] = [];
  const err = (field: string[], code: string, message: string) => errors.push({ field: ['basicCodeDiscount', ...field], code, message });
  const code = typeof input.code === 'string' ? input.code : '';
  if (code.length < 1 || code.length > 255) err(['code'], 'BLANK', "Code can't be blank");
  else if (taken(code)) err(['code'], 'TAKEN', 'Code must be unique. Please try a different code.');
  const title = typeof input.title === 'string' ? input.title : '';
  if (title === '') err(['title'], 'BLANK', "Title can't be blank");
  const startsAt = typeof input.startsAt === 'string' && !Number.isNaN(Date.parse(input.startsAt)) ? input.startsAt : undefined;
  if (startsAt === undefined) err(['startsAt'], 'BLANK', "Starts at can't be blank");
  const endsAt = input.endsAt === undefined || input.endsAt === null ? null : String(input.endsAt);
  if (endsAt !== null && Number.isNaN(Date.parse(endsAt))) err(['endsAt'], 'INVALID', 'Ends at is invalid');
  else if (endsAt !== null && startsAt && Date.parse(endsAt) <= Date.parse(startsAt)) {
    err(['endsAt'], 'END_DATE_BEFORE_START_DATE', 'Ends at needs to be after starts_at');
  }
  const minimum = (input.minimumRequirement ?? null) as { subtotal?: { greaterThanOrEqualToSubtotal?: unknown } } | null;
  const least = minimum?.subtotal?.greaterThanOrEqualToSubtotal;
  const minimumSubtotal = typeof least === 'number' ? String(least) : typeof least === 'string' ? least : null;
  if (minimum !== null && (minimumSubtotal === null || !AMOUNT.test(minimumSubtotal))) {
    err(['minimumRequirement', 'subtotal', 'greaterThanOrEqualToSubtotal'], 'INVALID', 'Minimum subtotal must be a decimal amount');
  }
  const usageLimit = input.usageLimit === undefined || input.usageLimit === null ? null : input.usageLimit;
  if (usageLimit !== null && !(typeof usageLimit === 'number' && Number.isInteger(usageLimit) && usageLimit >= 1)) {
    err(['usageLimit'], 'INVALID', 'Usage limit must be greater than 0');
  }
  const gets = (input.customerGets ?? {}) as { value?: { discountAmount?: { amount?: unknown } }; items?: { all?: unknown } };
  const amount = gets.value?.discountAmount?.amount;
  const amountText = typeof amount === 'number' ? String(amount) : typeof amount === 'string' ? amount : '';
  if (!AMOUNT.test(amountText) || Number(amountText) <= 0) {
    err(
      ['customerGets', 'value', 'discountAmount', 'amount'],
      'INVALID',
      'Value must be greater than 0 (the stand-in makes fixed amounts only)',
    );
  }
  if (gets.items?.all !== true) err(['customerGets', 'items'], 'INVALID', 'the stand-in makes discounts on all items only');
  const who = (input.context ?? input.customerSelection ?? {}) as { all?: unknown; customers?: { add?: unknown } };
  const add = who.customers?.add;
  const customers = Array.isArray(add) ? add.filter((c): c is string => typeof c === 'string') : [];
  if (Array.isArray(add) && (customers.length !== add.length || customers.some((c) => !CUSTOMER_GID.test(c)))) {
    err(['context', 'customers', 'add'], 'INVALID', 'Customer ids must be Customer gids');
  } else if (who.all !== true && customers.length === 0) {
    err(['context'], 'BLANK', 'Context must name customers or all');
  }
  if (errors.length > 0 || startsAt === undefined) return { userErrors: errors };
  const value: DiscountInput = {
    code,
    title,
    startsAt,
    endsAt,
    usageLimit: usageLimit as number | null,
    appliesOncePerCustomer: input.appliesOncePerCustomer === true,
    customers,
    amount: amountText,
    minimumSubtotal,
  };
  return { value };
}

/** A variable or a literal argument's value (a literal string as written: `"CODE"`). */
function argument(field: Field, name: string, vars: Record<string, unknown>): unknown {
  const raw = field.args[name];
  if (raw === undefined) return undefined;
  if (raw.startsWith('$')) return vars[raw.slice(1)];
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

const DISCOUNT_FIELDS = new Set(['discountCodeBasicCreate', 'discountCodeDeactivate', 'codeDiscountNodeByCode']);

/** The answer to a discount document, or undefined when the document is about something else. */
export function answerDiscounts(
  discounts: Discounts,
  top: Field,
  vars: Record<string, unknown>,
  version = CONTEXT_SINCE_VERSION,
): DiscountAnswer | undefined {
  if (!DISCOUNT_FIELDS.has(top.name)) return undefined;
  try {
    const input = top.name === 'discountCodeBasicCreate' ? argument(top, 'basicCodeDiscount', vars) : undefined;
    if (input && typeof input === 'object' && 'context' in input && version !== 'unstable' && version < CONTEXT_SINCE_VERSION) {
      // As Shopify answers an input field its version does not define: the whole document refused.
      return {
        errors: [
          {
            message: `Variable $basicCodeDiscount of type DiscountCodeBasicInput! was provided invalid value for context (Field is not defined on DiscountCodeBasicInput)`,
          },
        ],
      };
    }
    if (top.name === 'codeDiscountNodeByCode') {
      const code = argument(top, 'code', vars);
      if (typeof code !== 'string') return { errors: [{ message: 'Variable $code of type String! was provided invalid value' }] };
      const found = discounts.byCode(code);
      return { data: { codeDiscountNodeByCode: found ? project(discounts.node(found), top.children, 'DiscountCodeNode') : null } };
    }
    const result =
      top.name === 'discountCodeBasicCreate'
        ? discounts.create((argument(top, 'basicCodeDiscount', vars) ?? {}) as Record<string, unknown>)
        : discounts.deactivate(argument(top, 'id', vars));
    const payload = {
      __typename: 'Payload',
      codeDiscountNode: result.node ?? null,
      userErrors: result.userErrors.map((e) => ({ __typename: 'DiscountUserError', ...e, extraInfo: null })),
    };
    return { data: { [top.name]: project(payload, top.children, 'Payload') } };
  } catch (e) {
    return { errors: [{ message: e instanceof Error ? e.message : 'invalid selection' }] };
  }
}

/**
 * `value` through a selection: each selected field (an unknown one is the error Shopify gives), each
 * inline fragment only where the object is of its type.
 */
function project(value: unknown, fields: readonly Field[], type: string): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((v) => project(v, fields, type));
  if (typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  const typename = typeof object.__typename === 'string' ? object.__typename : type;
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.on !== undefined) {
      if (f.on === typename) Object.assign(out, project(object, f.children, typename) as object);
      continue;
    }
    if (f.name === '__typename') {
      out.__typename = typename;
      continue;
    }
    if (!Object.hasOwn(object, f.name)) throw new Error(`Field '${f.name}' doesn't exist on type '${typename}'`);
    const v = object[f.name];
    out[f.name] = f.children.length > 0 ? project(v, f.children, typename) : v;
  }
  return out;
}
