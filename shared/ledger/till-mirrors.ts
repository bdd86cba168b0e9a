import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod'; // namespace import: lets esbuild drop zod's locales from Lambda bundles
import { LEDGER_TABLE_SCHEMA } from '../config/index.js';
import { scanKeyPrefix } from '../dynamodb/index.js';
import { indexKeys } from './index-keys.js';
import { lazyObject } from '../schema/index.js';
import { Expression } from './expression.js';
import { type Clock, createStore, type Store } from './store.js';
import { LEDGER_KEY_PREFIX } from './key-prefixes.js';

/**
 * One points change of the membership service mirrored to a till's own point record (Smaregi's
 * 会員ポイント相対値更新), as a ledger step of its own, so it is sent exactly once:
 * `till-mirror#<source>#<marker>`, the marker being that of the points call it mirrors.
 *
 * - `planned`: written by a web leg (shared/redemption/protocol.ts) before its points call, so a process
 *   that dies between the call and its mirror leaves a step to find: whether the call ran is not known
 *   yet. The leg confirms it (`pending`) when the call ran, or ends it `void` when its answer proved it did
 *   not; a step found `planned` later is settled by the member's point history (the marker found: it
 *   ran). `void` is final unless the same leg is sent again (a later attempt plans it anew). Planned, the
 *   step is listed under `till-open#<source>` (tillOpenPartition) until it is sent or the sweep ends it.
 * - `pending`: begun, nothing sent yet (the customer not yet found or its point not yet read): found
 *   again, it is done from the start.
 * - `sending`: about to add `points` to the Smaregi customer, whose point read `before` just before it.
 *   Found again (the attempt died or its answer was lost), the step is left alone until the in-doubt
 *   horizon has passed since it was sent (`updatedAt`: the add may still be on its way, sent by an attempt
 *   that is alive), then taken over by one conditional write (`retake`), and the customer's point tells
 *   what happened: `before + points` (it ran: `done`), `before` (it did not: sent again), anything else
 *   (a change we have not read: `conflict`, never written over).
 * - `done` (with `after`), `refused` (Smaregi refused it: the reason), `conflict`, `skipped` (the member
 *   has no till customer): final.
 * - `till`: not a step but a note, final from its start: a change the till made on its own record (a
 *   member's spend at the till, its give-back) that a Smaregi transaction told us of, keyed by the marker
 *   of its points call, with when we learned it (`createdAt`).
 * A step that is sent (`readAt`: just before its `before` was read; `sentAt`: after) and a till note sit
 * in the member's partition of the ledger's sparse index (`till-point#<source>#<member>`, by `sentAt` or
 * `createdAt`), so the settle of a step in doubt finds the changes of the same record around its read
 * (`around`). Ids and points only: the member's id in the membership service and Smaregi's customer id.
 */

export const TILL_MIRROR_STATES = ['planned', 'void', 'pending', 'sending', 'done', 'refused', 'conflict', 'skipped', 'till'] as const;
export type TillMirrorState = (typeof TILL_MIRROR_STATES)[number];
const UNFINISHED = ['planned', 'pending', 'sending'] as const satisfies readonly TillMirrorState[];
/** Not final: `planned` (its points call not yet known to have run), `pending` (nothing sent) or `sending` (settled by reading the customer's point). */
export const isUnfinishedTillMirror = (s: Pick<TillMirrorRecord, 'state'>): boolean => (UNFINISHED as readonly string[]).includes(s.state);

export const TillMirrorRecord = lazyObject(z.object, () => ({
  pk: z.string(),
  kind: z.literal('till_mirror'),
  source: z.string(),
  marker: z.string(),
  memberId: z.string(),
  points: z.number(),
  state: z.enum(TILL_MIRROR_STATES),
  smaregiCustomerId: z.string().optional(),
  before: z.number().optional(),
  /** When `before` was about to be read (ISO, the store's clock): the read came after. */
  readAt: z.string().optional(),
  /** When the step went `sending` with that `before` (ISO): the read came before, the add after. */
  sentAt: z.string().optional(),
  after: z.number().optional(),
  /** What the customer's point read when a `sending` step was found again and matched nothing we sent. */
  found: z.number().optional(),
  reason: z.string().optional(),
  /** When an in-store member's privacy erase took the Smaregi customer id out (shared/privacy/member.ts). */
  redactedAt: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string().optional(),
  ttl: z.number().optional(),
}));
export type TillMirrorRecord = z.infer<typeof TillMirrorRecord>;

export const tillMirrorKey = (source: string, marker: string) =>
  `${LEDGER_KEY_PREFIX.tillMirror}${encodeURIComponent(source)}#${encodeURIComponent(marker)}`;

/**
 * A web leg's step not sent yet (`planned`, `void`, `pending`) waits in the sparse index under this
 * partition, by when it was (re)planned: the redemption sweep finds a leg whose process died between its
 * points call and its mirror without scanning (listOpenLegs). Sending moves it to the member's partition.
 */
export const tillOpenPartition = (source: string) => `till-open#${encodeURIComponent(source)}`;

/** The member's partition of the sparse index: the sent steps and till notes of one till record. */
export const tillPointPartition = (source: string, memberId: string) =>
  `till-point#${encodeURIComponent(source)}#${encodeURIComponent(memberId)}`;

export type NewTillMirror = Pick<TillMirrorRecord, 'source' | 'marker' | 'memberId' | 'points' | 'state'> &
  Partial<Pick<TillMirrorRecord, 'smaregiCustomerId' | 'before' | 'reason'>>;

export interface TillMirrors {
  /** The store's clock: every horizon of the mirror is read by it (the one its records are stamped by). */
  now(): number;
  get(source: string, marker: string): Promise<TillMirrorRecord | undefined>;
  /** Writes the step where none is: undefined when one already is (someone else began it). */
  begin(step: NewTillMirror): Promise<TillMirrorRecord | undefined>;
  /**
   * A web leg's step, before its points call: written `planned` where none is, or planned again (with
   * this leg's points) where an earlier attempt left it `planned` or `void`. The record as it is after.
   */
  plan(step: Omit<NewTillMirror, 'state'>): Promise<TillMirrorRecord | undefined>;
  /** Moves a step on (one conditional write from `from`, default `sending`): the record after, or undefined. */
  settle(
    source: string,
    marker: string,
    fields: Partial<Pick<TillMirrorRecord, 'state' | 'points' | 'smaregiCustomerId' | 'before' | 'after' | 'found' | 'reason'>>,
    from?: 'planned' | 'void' | 'pending' | 'sending',
  ): Promise<TillMirrorRecord | undefined>;
  /**
   * Takes over a `sending` step sent at least `horizonMs` ago, as read (one conditional write on its
   * `updatedAt`, which it moves to now): the record after, or undefined when it was sent more recently or
   * another settler took it first. Only the taker may read the customer's point and send again.
   */
  retake(step: TillMirrorRecord, horizonMs: number): Promise<TillMirrorRecord | undefined>;
  /**
   * A step goes `sending` (one conditional write from `from`): its customer, the point read and when the
   * read began (`readAt`, epoch ms); `sentAt` is now. Indexed in its member's partition. The record after.
   */
  send(
    step: Pick<TillMirrorRecord, 'source' | 'marker' | 'memberId'>,
    read: { smaregiCustomerId: string; before: number; readAt: number },
    from: 'pending' | 'sending',
  ): Promise<TillMirrorRecord | undefined>;
  /** A change the till made on its own record (a spend, its give-back), noted once by its marker (state `till`). */
  noteTill(change: Pick<TillMirrorRecord, 'source' | 'marker' | 'memberId' | 'points'>): Promise<void>;
  /**
   * The member's sent steps and till notes indexed from `sinceMs` on (the step itself left out), each
   * read again by key (the index is keys only and eventually consistent).
   */
  around(step: Pick<TillMirrorRecord, 'pk' | 'source' | 'memberId'>, sinceMs: number): Promise<TillMirrorRecord[]>;
  /** A web leg's steps planned at or before `untilIso` and not sent since (tillOpenPartition), each read by key. */
  listOpenLegs(source: string, untilIso: string): Promise<TillMirrorRecord[]>;
  /** Takes a step out of the open legs' partition (one conditional write: only while it is there). */
  unlist(step: Pick<TillMirrorRecord, 'source' | 'marker'>): Promise<void>;
  /** Every step not final (`planned`, `pending`, `sending`), of every source: to be finished (settleTillMirrors). */
  listUnfinished(): Promise<TillMirrorRecord[]>;
  /**
   * Every step not `done` or `skipped` (unfinished, `conflict`, `refused`), of every source: what the
   * nightly audit finishes and reports. Done steps, nearly all of them, are not sent back by the scan.
   */
  listOpen(): Promise<TillMirrorRecord[]>;
  /** Every step of every source (a scan: operators and checks); the till's own changes noted for the settles are not steps. */
  list(): Promise<TillMirrorRecord[]>;
  /**
   * A privacy erase: the Smaregi customer id out (member ids and points stay, as on orders); a step not
   * final is ended `skipped` (nothing more is sent for an erased member). The record after, or undefined.
   */
  redact(step: TillMirrorRecord): Promise<TillMirrorRecord | undefined>;
}

export interface TillMirrorsOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: Clock;
  ttlDays?: number;
}

export function createTillMirrors(options: TillMirrorsOptions): TillMirrors {
  const store = createStore({ ...options, ttlDays: options.ttlDays ?? 400, leaseMs: 0 });
  /** The steps in `states` (all: every step), in one scan. */
  async function list(states?: readonly TillMirrorState[]): Promise<TillMirrorRecord[]> {
    const out: TillMirrorRecord[] = [];
    const values = Object.fromEntries((states ?? []).map((s, i) => [`:s${i}`, s]));
    const filter = states && { expression: `#state IN (${Object.keys(values).join(', ')})`, names: { '#state': 'state' }, values };
    for await (const item of scanKeyPrefix(options.client, options.tableName, LEDGER_KEY_PREFIX.tillMirror, filter ? { filter } : {})) {
      const parsed = TillMirrorRecord.safeParse(item);
      if (parsed.success) out.push(parsed.data);
    }
    return out;
  }
  const index = LEDGER_TABLE_SCHEMA.unlinkedIndex;
  const api: TillMirrors = {
    now: () => store.clock(),
    async get(source, marker) {
      const item = await store.get(tillMirrorKey(source, marker));
      return item ? TillMirrorRecord.parse(item) : undefined;
    },
    async begin(step) {
      const now = store.clock();
      const record: TillMirrorRecord = {
        ...step,
        pk: tillMirrorKey(step.source, step.marker),
        kind: 'till_mirror',
        createdAt: store.iso(now),
        ttl: store.ttlFrom(now),
      };
      return store.create(record);
    },
    plan: (step) => planStep(store, step, api.get),
    listOpenLegs: async (source, untilIso) => {
      const pks = await indexKeys(options.client, options.tableName, tillOpenPartition(source), { until: untilIso });
      return parsedAll(await Promise.all(pks.map((pk) => store.get(pk))));
    },
    async unlist(step) {
      const e = new Expression().remove(index.partitionKey, index.sortKey);
      await store.update(
        tillMirrorKey(step.source, step.marker),
        e,
        `${e.path(index.partitionKey)} = ${e.value(tillOpenPartition(step.source))}`,
      );
    },
    async settle(source, marker, fields, from = 'sending') {
      const e = new Expression().setAll({ ...fields, updatedAt: store.iso(store.clock()) });
      const item = await store.update(tillMirrorKey(source, marker), e, `${e.path('state')} = ${e.value(from)}`);
      return item ? TillMirrorRecord.parse(item) : undefined;
    },
    async retake(step, horizonMs) {
      const now = store.clock();
      const sentAt = step.updatedAt ?? step.createdAt;
      if (step.state !== 'sending' || Date.parse(sentAt) + horizonMs > now) return undefined;
      const e = new Expression().setAll({ updatedAt: store.iso(now) });
      const sentWhen =
        step.updatedAt === undefined ? `attribute_not_exists(${e.path('updatedAt')})` : `${e.path('updatedAt')} = ${e.value(sentAt)}`;
      const item = await store.update(
        tillMirrorKey(step.source, step.marker),
        e,
        `${e.path('state')} = ${e.value('sending')} AND ${sentWhen}`,
      );
      return item ? TillMirrorRecord.parse(item) : undefined;
    },
    async send(step, read, from) {
      const now = store.iso(store.clock());
      const e = new Expression().setAll({
        state: 'sending',
        smaregiCustomerId: read.smaregiCustomerId,
        before: read.before,
        readAt: store.iso(read.readAt),
        sentAt: now,
        updatedAt: now,
        [index.partitionKey]: tillPointPartition(step.source, step.memberId),
        [index.sortKey]: now,
      });
      const item = await store.update(tillMirrorKey(step.source, step.marker), e, `${e.path('state')} = ${e.value(from)}`);
      return item ? TillMirrorRecord.parse(item) : undefined;
    },
    async noteTill(change) {
      const now = store.clock();
      await store.create({
        ...change,
        pk: tillMirrorKey(change.source, change.marker),
        kind: 'till_mirror',
        state: 'till',
        createdAt: store.iso(now),
        ttl: store.ttlFrom(now),
        [index.partitionKey]: tillPointPartition(change.source, change.memberId),
        [index.sortKey]: store.iso(now),
      });
    },
    async around(step, sinceMs) {
      const pks = await indexKeys(options.client, options.tableName, tillPointPartition(step.source, step.memberId), {
        from: store.iso(sinceMs),
      });
      return parsedAll(await Promise.all(pks.filter((pk) => pk !== step.pk).map((pk) => store.get(pk))));
    },
    list: async () => (await list()).filter((s) => s.state !== 'till'),
    async redact(step) {
      const now = store.iso(store.clock());
      const unfinished = isUnfinishedTillMirror(step);
      const fields = unfinished ? { state: 'skipped', reason: 'the member was erased (privacy)' } : {};
      const e = new Expression().setAll({ ...fields, redactedAt: now, updatedAt: now }).remove('smaregiCustomerId');
      // Only from the state read: a step that moved meanwhile is found again by the next erase.
      const item = await store.update(tillMirrorKey(step.source, step.marker), e, `${e.path('state')} = ${e.value(step.state)}`);
      return item ? TillMirrorRecord.parse(item) : undefined;
    },
    listUnfinished: () => list(UNFINISHED),
    listOpen: () => list([...UNFINISHED, 'conflict', 'refused']),
  };
  return api;
}

/** The steps among items read by key (the index is eventually consistent: an item gone meanwhile is left out). */
const parsedAll = (items: readonly (Record<string, unknown> | undefined)[]): TillMirrorRecord[] =>
  items.flatMap((item) => {
    const parsed = item ? TillMirrorRecord.safeParse(item) : undefined;
    return parsed?.success ? [parsed.data] : [];
  });

/**
 * A web leg's step before its points call: written `planned` where none is, or planned again (this
 * leg's points) where an earlier attempt left it `planned` or `void`; either way listed in the open legs'
 * partition from now (the redemption sweep finds it there if the leg's process dies).
 */
async function planStep(store: Store, step: Omit<NewTillMirror, 'state'>, get: TillMirrors['get']): Promise<TillMirrorRecord | undefined> {
  const index = LEDGER_TABLE_SCHEMA.unlinkedIndex;
  const now = store.clock();
  const open = { [index.partitionKey]: tillOpenPartition(step.source), [index.sortKey]: store.iso(now) };
  const pk = tillMirrorKey(step.source, step.marker);
  const record: TillMirrorRecord = {
    ...step,
    state: 'planned',
    pk,
    kind: 'till_mirror',
    createdAt: store.iso(now),
    ttl: store.ttlFrom(now),
  };
  if (await store.create({ ...record, ...open })) return record;
  const current = await get(step.source, step.marker);
  if (current?.state !== 'planned' && current?.state !== 'void') return current;
  const e = new Expression().setAll({ state: 'planned', points: step.points, updatedAt: store.iso(now), ...open });
  const item = await store.update(pk, e, `${e.path('state')} = ${e.value(current.state)}`);
  return item ? TillMirrorRecord.parse(item) : get(step.source, step.marker);
}
