/** A ledger item the audit cannot read (the schema changed under it): listed, never skipped silently. */
export class UnreadableRecordError extends Error {
  override readonly name = 'UnreadableRecordError';
  readonly kind = 'unreadable_record' as const;
  constructor(pk: string, reason: string) {
    super(`ledger record ${pk} does not match the record schema: ${reason}`);
  }
}
