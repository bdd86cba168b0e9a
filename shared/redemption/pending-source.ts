/** A source whose provisional orders a member's points page lists beside the shop's own (pending.ts). */
export interface PendingSource {
  readonly source: string;
  readonly externalKey: string;
  /** The member's record holds the source's customer under `externalKey` (default) or as its `unique_id`. */
  readonly memberLookup?: 'external_id' | 'unique_id' | undefined;
}
