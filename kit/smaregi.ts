import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** A fixture of test/fixtures/smaregi (hand-made: SOURCES.md), as parsed JSON. */
export function smaregiFixture<T = Record<string, unknown>>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../test/fixtures/smaregi/${name}`, import.meta.url), 'utf8')) as T;
}

/** A fixture transaction with another id, dated now (so it is within every window). */
export function smaregiTransaction(name: string, id: string, changes: Record<string, unknown> = {}): Record<string, unknown> {
  const tx = smaregiFixture(name);
  const at = new Date().toISOString();
  const details = (tx.details as Record<string, unknown>[] | undefined)?.map((d) => ({ ...d, transactionHeadId: id }));
  return { ...tx, transactionHeadId: id, transactionDateTime: at, updDateTime: at, ...(details ? { details } : {}), ...changes };
}

async function post(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
}

/** The parts of a running local stack (local/stack.ts's LocalStack) a Smaregi delivery and seeding need. */
export interface SmaregiStackParts {
  urls: { intake: string; smaregi: string };
  standIns: { smaregi: { contractId: string; webhookSecret: string; webhookHeader: string } };
}

/** Seeds the stand-in through its own routes (POST /__smaregi/customers and /__smaregi/transactions). */
export const seedSmaregiCustomer = (stack: SmaregiStackParts, customer: unknown) =>
  post(`${stack.urls.smaregi}/__smaregi/customers`, customer);
export const seedSmaregiTransaction = (stack: SmaregiStackParts, tx: unknown) => post(`${stack.urls.smaregi}/__smaregi/transactions`, tx);

export interface SmaregiDelivery {
  action?: string;
  contractId?: string;
  /** The custom header's value; null: sent without it. */
  secret?: string | null;
  eventId?: string;
}

/** Posts a Smaregi `pos:transactions` webhook as Smaregi sends it (custom header, Smaregi-* headers). */
export async function deliverSmaregi(
  stack: SmaregiStackParts,
  ids: string[],
  d: SmaregiDelivery = {},
): Promise<{ status: number; body: unknown }> {
  const contractId = d.contractId ?? stack.standIns.smaregi.contractId;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Smaregi-Platform-Api-Webhook/1.0',
    'smaregi-event': 'pos:transactions',
    'smaregi-contract-id': contractId,
    'smaregi-event-id': d.eventId ?? randomUUID(),
  };
  const secret = d.secret === undefined ? stack.standIns.smaregi.webhookSecret : d.secret;
  if (secret !== null) headers[stack.standIns.smaregi.webhookHeader] = secret;
  const body = JSON.stringify({ contractId, event: 'pos:transactions', action: d.action ?? 'created', transactionHeadIds: ids });
  const res = await fetch(`${stack.urls.intake}/webhooks/smaregi`, { method: 'POST', headers, body });
  return { status: res.status, body: await res.json() };
}

/** A till transaction of one product: who, where, when (the till's time), how many at what price. */
export interface TillLineOptions {
  productId: string;
  quantity?: number;
  /** Yen per item, 10 % tax included (default 11,000: ¥10,000 earning). */
  unitGross?: number;
  customerId?: string | null;
  storeId?: string;
  /** The till's time (ISO; default now). */
  at?: string;
}

/**
 * A sale of `quantity` × one product (the tax-included fixture's line, changed), or with `returned` a plain
 * return of them (返品販売: `returnSales` 1, negative amounts and quantity, naming no sale).
 */
export function smaregiTillTransaction(id: string, o: TillLineOptions, returned = false): Record<string, unknown> {
  const sign = returned ? -1 : 1;
  const quantity = o.quantity ?? 1;
  const gross = (o.unitGross ?? 11_000) * quantity * sign;
  const tax = gross / 11;
  const base = smaregiTransaction('transaction-sale-tax-included.json', id);
  const line = (base.details as Record<string, unknown>[])[0] as Record<string, unknown>;
  const at = o.at ?? new Date().toISOString();
  return {
    ...base,
    subtotal: String(gross),
    total: String(gross),
    taxInclude: String(tax),
    customerId: o.customerId === undefined ? '1' : o.customerId,
    storeId: o.storeId ?? '1',
    terminalTranDateTime: at,
    transactionDateTime: at,
    // Rung up then and never changed since (the fixture's own time is the real clock's, not the till's).
    updDateTime: at,
    returnSales: returned ? '1' : '0',
    details: [
      {
        ...line,
        productId: o.productId,
        quantity: String(quantity * sign),
        unitDiscountedSum: String(gross),
        taxIncludeProportional: String(tax),
      },
    ],
  };
}
