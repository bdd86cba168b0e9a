import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';

/**
 * An SQS FIFO batch with its groups run side by side: the messages of one group one after another, in
 * the batch's order; different groups at once (their order between them is not FIFO's to keep). A
 * message that fails fails every later message of its group too, unprocessed (FIFO: they must come back
 * after it); the other groups go on. The answer lists the failures in the batch's order (Lambda's
 * partial batch response).
 */
export async function processGroups(records: SQSRecord[], handle: (record: SQSRecord) => Promise<unknown>): Promise<SQSBatchResponse> {
  const groups = new Map<string, SQSRecord[]>();
  for (const record of records) {
    // Without a group id (not a FIFO queue) each message is a group of its own.
    const group = record.attributes?.MessageGroupId ?? `\u0000${record.messageId}`;
    const list = groups.get(group);
    if (list) list.push(record);
    else groups.set(group, [record]);
  }
  const failed = new Set<string>();
  await Promise.all(
    [...groups.values()].map(async (list) => {
      for (const [i, record] of list.entries()) {
        try {
          await handle(record);
        } catch {
          for (const later of list.slice(i)) failed.add(later.messageId);
          return;
        }
      }
    }),
  );
  return { batchItemFailures: records.filter((r) => failed.has(r.messageId)).map((r) => ({ itemIdentifier: r.messageId })) };
}
