/** The quarantine's errors. */

/** A replay recorded on an entry that is gone (expired, or another id). */
export class QuarantineEntryMissingError extends Error {
  override readonly name = 'QuarantineEntryMissingError';
  readonly kind = 'entry_missing';
  constructor(id: string) {
    super(`no quarantined delivery ${id}`);
  }
}
