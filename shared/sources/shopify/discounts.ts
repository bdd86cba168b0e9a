import * as z from 'zod';
import type { ShopifyAdminClient } from './client.js';
import { ShopifyAdminError } from './errors.js';
import { lazyObject, lazySchema } from '../../schema/index.js';

/**
 * Single-use code discounts through the GraphQL Admin API (scope `write_discounts`):
 * `discountCodeBasicCreate` makes a fixed amount off the whole order for one customer (`context`,
 * API 2025-10 on), usable once, ending at a time, on a subtotal of at least its amount (Shopify caps an
 * amount-off larger than the goods silently: the rest would be lost with the code);
 * `discountCodeDeactivate` ends one now; `codeDiscountNodeByCode` finds one by its code. The caller
 * chooses the code, so a create whose answer was lost is found by the code, never made twice (Shopify
 * refuses a second discount with the same code: `TAKEN`). `shop { currencyCode }`: the currency every
 * amount is in.
 */

/**
 * The access scopes of the App Proxy's own Admin API token (its secret holds nothing else): making,
 * reading and ending codes. `write_discounts` alone would do; `read_discounts` is named as Shopify
 * lists it beside it. No `read_orders`: the internet-facing function reads no order.
 */
export const REDEMPTION_TOKEN_SCOPES = ['write_discounts', 'read_discounts'] as const;

const CODE_DISCOUNT = `codeDiscount { ... on DiscountCodeBasic { status usageLimit asyncUsageCount endsAt } }`;

export const DISCOUNT_CODE_BASIC_CREATE = `mutation RedemptionCodeCreate($basicCodeDiscount: DiscountCodeBasicInput!) {
  discountCodeBasicCreate(basicCodeDiscount: $basicCodeDiscount) {
    codeDiscountNode { id ${CODE_DISCOUNT} }
    userErrors { field code message }
  }
}`;

export const DISCOUNT_CODE_DEACTIVATE = `mutation RedemptionCodeDeactivate($id: ID!) {
  discountCodeDeactivate(id: $id) {
    codeDiscountNode { id ${CODE_DISCOUNT} }
    userErrors { field code message }
  }
}`;

export const CODE_DISCOUNT_NODE_BY_CODE = `query RedemptionCode($code: String!) {
  codeDiscountNodeByCode(code: $code) { id ${CODE_DISCOUNT} }
}`;

export const SHOP_CURRENCY = `query ShopCurrency {
  shop { currencyCode }
}`;

const CodeDiscountNode = lazyObject(z.object, () => ({
  id: z.string().regex(/^gid:\/\/shopify\/DiscountCodeNode\/\d{1,20}$/),
  codeDiscount: z.object({
    status: z.enum(['ACTIVE', 'EXPIRED', 'SCHEDULED']).optional(),
    usageLimit: z.number().int().nullable().optional(),
    asyncUsageCount: z.number().int().optional(),
    endsAt: z.string().nullable().optional(),
  }),
}));
export type CodeDiscountNode = z.infer<typeof CodeDiscountNode>;

const UserErrors = lazySchema(() =>
  z.array(z.object({ field: z.array(z.string()).nullable().optional(), code: z.string().nullable().optional(), message: z.string() })),
);
const Payload = lazySchema(() => z.object({ codeDiscountNode: CodeDiscountNode.nullable(), userErrors: UserErrors }));

export interface DiscountCodeInput {
  code: string;
  title: string;
  /** Decimal string in the shop's currency. */
  amount: string;
  /** `gid://shopify/Customer/<id>`. */
  customerGid: string;
  startsAt: string;
  endsAt: string;
  /** Whether the code combines with shipping discounts (a shop's automatic free shipping); default false. */
  combinesWithShipping?: boolean;
}

/**
 * Made, or refused: `taken` when the code exists already, `transient` when Shopify said its own
 * failure (userError `INTERNAL_ERROR`: nothing made, worth another try).
 */
export type DiscountResult = { ok: true; node: CodeDiscountNode } | { ok: false; taken: boolean; transient: boolean; reason: string };

function read<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new ShopifyAdminError('invalid_response', `unexpected ${what} answer`);
  return parsed.data;
}

const reasonOf = (errors: z.infer<typeof UserErrors>) =>
  errors
    .map((e) => `${(e.field ?? []).join('.')}${e.code ? ` ${e.code}` : ''}: ${e.message}`)
    .join('; ')
    .slice(0, 300);

/** Makes the code; a refusal (userErrors) is a result, `taken` when the code exists already. Other failures throw. */
export async function createDiscountCode(client: Pick<ShopifyAdminClient, 'graphql'>, input: DiscountCodeInput): Promise<DiscountResult> {
  const answer = read(
    z.object({ discountCodeBasicCreate: Payload }),
    await client.graphql(DISCOUNT_CODE_BASIC_CREATE, {
      basicCodeDiscount: {
        title: input.title,
        code: input.code,
        startsAt: input.startsAt,
        endsAt: input.endsAt,
        usageLimit: 1,
        appliesOncePerCustomer: true,
        context: { customers: { add: [input.customerGid] } },
        customerGets: { value: { discountAmount: { amount: input.amount, appliesOnEachItem: false } }, items: { all: true } },
        minimumRequirement: { subtotal: { greaterThanOrEqualToSubtotal: input.amount } },
        combinesWith: { orderDiscounts: false, productDiscounts: false, shippingDiscounts: input.combinesWithShipping ?? false },
      },
    }),
    'discountCodeBasicCreate',
  ).discountCodeBasicCreate;
  if (answer.userErrors.length === 0 && answer.codeDiscountNode) return { ok: true, node: answer.codeDiscountNode };
  return {
    ok: false,
    taken: answer.userErrors.some((e) => e.code === 'TAKEN'),
    transient: answer.userErrors.some((e) => e.code === 'INTERNAL_ERROR'),
    reason: reasonOf(answer.userErrors) || 'no reason given',
  };
}

/** Ends the code now (status EXPIRED); a refusal is a result. */
export async function deactivateDiscountCode(client: Pick<ShopifyAdminClient, 'graphql'>, id: string): Promise<DiscountResult> {
  const answer = read(
    z.object({ discountCodeDeactivate: Payload }),
    await client.graphql(DISCOUNT_CODE_DEACTIVATE, { id }),
    'discountCodeDeactivate',
  ).discountCodeDeactivate;
  if (answer.userErrors.length === 0 && answer.codeDiscountNode) return { ok: true, node: answer.codeDiscountNode };
  return {
    ok: false,
    taken: false,
    transient: answer.userErrors.some((e) => e.code === 'INTERNAL_ERROR'),
    reason: reasonOf(answer.userErrors) || 'no reason given',
  };
}

/** The discount holding `code`, or undefined when the shop has none. */
export async function discountByCode(client: Pick<ShopifyAdminClient, 'graphql'>, code: string): Promise<CodeDiscountNode | undefined> {
  const answer = read(
    z.object({ codeDiscountNodeByCode: CodeDiscountNode.nullable() }),
    await client.graphql(CODE_DISCOUNT_NODE_BY_CODE, { code }),
    'codeDiscountNodeByCode',
  );
  return answer.codeDiscountNodeByCode ?? undefined;
}

/** The shop's currency (`CurrencyCode`, `JPY`): what every amount of a code is in. */
export async function shopCurrency(client: Pick<ShopifyAdminClient, 'graphql'>): Promise<string> {
  return read(
    z.object({ shop: z.object({ currencyCode: z.string().regex(/^[A-Z]{3}$/) }) }),
    await client.graphql(SHOP_CURRENCY, {}),
    'shop',
  ).shop.currencyCode;
}

/** Orders per code read by the sweep: a single-use code has one order, others naming it are misuses worth seeing. */
export const CODE_ORDERS_LIMIT = 10;

/**
 * The orders that used a code (Shopify's order search, `discount_code:<code>`; scope `read_orders`): what
 * the sweep trusts before it returns a code's points, never `asyncUsageCount` alone (Shopify updates it
 * asynchronously: it may be lower than the code's real use).
 */
export const ORDERS_WITH_CODE_QUERY = `query RedemptionCodeOrders($query: String!) {
  orders(first: ${CODE_ORDERS_LIMIT}, query: $query) {
    nodes { id cancelledAt displayFinancialStatus customer { id } }
  }
}`;

const CodeOrder = lazyObject(z.object, () => ({
  id: z.string().regex(/^gid:\/\/shopify\/Order\/\d{1,20}$/),
  cancelledAt: z.string().nullable(),
  displayFinancialStatus: z.string().nullable().optional(),
  customer: z.object({ id: z.string().regex(/^gid:\/\/shopify\/Customer\/\d{1,20}$/) }).nullable(),
}));

export interface CodeOrder {
  orderId: string;
  customerId: string | undefined;
  cancelled: boolean;
  /** Payment still pending (konbini, bank transfer): the code is reserved by the order. */
  pending: boolean;
}

/** The orders naming `code`, as Shopify's search finds them. */
export async function ordersWithCode(client: Pick<ShopifyAdminClient, 'graphql'>, code: string): Promise<CodeOrder[]> {
  if (!/^[A-Za-z0-9_-]{1,255}$/.test(code)) throw new ShopifyAdminError('invalid_response', 'a code the order search cannot name');
  const answer = read(
    z.object({ orders: z.object({ nodes: z.array(CodeOrder) }) }),
    await client.graphql(ORDERS_WITH_CODE_QUERY, { query: `discount_code:${code}` }),
    'orders',
  );
  const tail = (gid: string) => gid.slice(gid.lastIndexOf('/') + 1);
  return answer.orders.nodes.map((o) => ({
    orderId: tail(o.id),
    customerId: o.customer ? tail(o.customer.id) : undefined,
    cancelled: o.cancelledAt !== null,
    pending: ['PENDING', 'AUTHORIZED', 'EXPIRED'].includes(o.displayFinancialStatus ?? ''),
  }));
}
