import { scanKeyPrefix } from '../../dynamodb/index.js';
import { type CustomerRef, customerKey } from '../customers.js';
import type { SourceCustomer } from '../link-marks.js';
import { linkMarkKey } from '../records.js';
import { deleteItem, type RedactionTable } from './item.js';

/**
 * What a privacy redaction does to the records keyed by the shop customer's id: the customer record
 * (`customer#…`) and the mark a recent link left (`linked#…`, kept a day) are deleted whole, since their
 * key itself names the customer. (customers/redact leaves a tombstone keyed by a digest of the id:
 * CustomerRecords.markRedacted.)
 */

/** A customer record as a shop's redaction sees it: its key, and the shop that made it if it says. */
export interface CustomerRecordKey {
  pk: string;
  shopDomain: string | undefined;
}

export async function deleteCustomerRecord(table: RedactionTable, ref: CustomerRef): Promise<boolean> {
  return deleteItem(table, customerKey(ref));
}

export async function deleteLinkMark(table: RedactionTable, customer: SourceCustomer): Promise<boolean> {
  return deleteItem(table, linkMarkKey(customer.source, customer.externalKey, customer.externalId));
}

/** Deletes a record one of the scans below found. */
export const deleteScanned = (table: RedactionTable, record: { pk: string }): Promise<boolean> => deleteItem(table, record.pk);

/** The source's customer records (a scan by key prefix: a shop's redaction is rare). */
export async function* scanCustomerRecords(table: RedactionTable, source: string): AsyncGenerator<CustomerRecordKey> {
  for await (const item of scanKeyPrefix(table.client, table.tableName, `customer#${encodeURIComponent(source)}#`, {
    consistentRead: true,
  })) {
    yield { pk: String(item.pk), shopDomain: typeof item.shopDomain === 'string' ? item.shopDomain : undefined };
  }
}

/** The source's link marks (they name no shop). */
export async function* scanLinkMarks(table: RedactionTable, source: string): AsyncGenerator<{ pk: string }> {
  for await (const item of scanKeyPrefix(table.client, table.tableName, `linked#${encodeURIComponent(source)}#`, {
    consistentRead: true,
  })) {
    yield { pk: String(item.pk) };
  }
}
