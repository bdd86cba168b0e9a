/**
 * Every sender kind, in order: a new sender's one registration line. `npm run gen:senders`
 * (tools/gen-senders.ts) writes the tables between `// gen:senders` markers in the files that hold
 * them (the webhook sources, their settings, their ops needs, their resolutions, their stand-ins) from
 * this list and the kind's conventional files (shared/sources/README.md, "Adding a sender"); a test fails when a table is stale or a file is missing.
 */
export const SENDER_KINDS = ['shopify', 'pos', 'square', 'smaregi'] as const;

/** A registered sender kind. */
export type SenderKind = (typeof SENDER_KINDS)[number];
