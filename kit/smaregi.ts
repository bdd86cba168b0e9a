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
