import type { RedemptionSettings } from './redemption-settings.js';
import type * as z from 'zod';
import type { PointsEvent, QueuedEvent } from '../events/index.js';

/** Request headers as received; names in any case (API Gateway v2 lower-cases them). */
export type RequestHeaders = Readonly<Record<string, string | undefined>>;

/** Why a source refused a request. The intake maps each kind to an HTTP status. */
export type SourceErrorKind =
  | 'missing_signature' // 401
  | 'invalid_signature' // 401
  | 'stale_timestamp' // 401
  | 'malformed_json' // 400
  | 'wrong_contract' // 403: authentic, but for another account of the sender (a Smaregi contract)
  | 'invalid_payload'; // 422

export interface SourceError {
  readonly kind: SourceErrorKind;
  /** Safe to return to the sender: never contains a secret or body content. */
  readonly message: string;
  /** Dotted path of the offending field (invalid_payload only), e.g. `customer.id`. */
  readonly path?: string;
}

/** The result of each step: a value, a deliberate "not for us" (answered 200), or a refusal. */
export type Outcome<T> =
  | { readonly status: 'ok'; readonly value: T }
  | { readonly status: 'ignored'; readonly reason: string }
  | { readonly status: 'rejected'; readonly error: SourceError };

export const ok = <T>(value: T): Outcome<T> => ({ status: 'ok', value });
export const ignored = (reason: string): { status: 'ignored'; reason: string } => ({ status: 'ignored', reason });
export const rejected = (error: SourceError): { status: 'rejected'; error: SourceError } => ({ status: 'rejected', error });

/** What a source is given to verify a request: the exact bytes that were signed. */
export interface SignedRequest {
  readonly rawBody: Buffer;
  readonly headers: RequestHeaders;
  /** When intake received it (epoch ms): for senders whose deliveries carry no time (Smaregi). */
  readonly receivedAtMs?: number;
}

export interface VerifyOptions {
  /** All currently valid secrets (current first); a match with any of them is authentic. */
  readonly secrets: readonly string[];
  /** Epoch milliseconds, for timestamp tolerance. */
  readonly nowMs: number;
}

/**
 * One webhook sender (shared/sources/<kind>/webhook.ts; README.md has what else a sender provides).
 * Steps run in order: verify (before anything reads the body), parse, normalise. `Event`: what the
 * source's deliveries become (points events; Shopify also customer events).
 */
export interface WebhookSource<Settings, Payload, Event extends QueuedEvent = PointsEvent> {
  /** Registry name, also the default source name (`/webhooks/<name>`). */
  readonly kind: string;
  /** Settings of this kind of source, with defaults; validated from SOURCES_CONFIG. */
  readonly settingsSchema: z.ZodType<Settings, unknown>;
  /** Checks the signature over the raw body. `null`: authentic. */
  verify(request: SignedRequest, options: VerifyOptions, settings: Settings): SourceError | null;
  /** Reads the payload; unhandled topics come back `ignored` (possibly without parsing the body). */
  parse(request: SignedRequest, settings: Settings): Outcome<Payload>;
  /** Turns the payload into the canonical event. */
  normalise(payload: Payload, context: NormaliseContext<Settings>): Outcome<Event>;
  /** A sender whose one delivery names several sales (Smaregi): one event each, queued one message each. */
  normaliseMany?(payload: Payload, context: NormaliseContext<Settings>): Outcome<Event[]>;
  /**
   * true: an authentic delivery that cannot be read or mapped is our bug, not the sender's: intake
   * keeps it in the quarantine and answers 200 (Shopify would retry, then drop the subscription).
   * Absent: it is refused with its 4xx (a sender that must see the error, like the POS).
   */
  readonly quarantinesUnreadable?: boolean;
  /**
   * The largest body this sender may send, when it is above intake's default (MAX_BODY_BYTES): a limit we
   * set lower than what the sender sends would refuse authentic deliveries.
   */
  readonly maxBodyBytes?: number;
  /** The webhook subscriptions the settings need at the sender (`npm run shopify -- subscribe`). */
  subscriptions?(settings: Settings): SourceSubscriptions;
  /** A delivery made with another API version than the settings name (counted and logged, still read). */
  versionMismatch?(headers: RequestHeaders, settings: Settings): VersionMismatch | undefined;
  /** How this sender's customers are linked to members (Shopify: the App Proxy link). */
  customerLinking?(settings: Settings): CustomerLinking;
  /**
   * The sender's own part of its events (Smaregi `stateFrom`, Square `amountFrom`), which its resolution
   * (shared/sources/resolution.entry.ts) turns into canonical events in the worker: checked here at intake.
   */
  readonly thinPart?: ThinPart;
}

/**
 * The settings side of a kind of source (shared/sources/<kind>/settings.ts): its schema and what its
 * settings say about customers. Functions that only read settings (the worker's redemptions, the App
 * Proxy, the sweep) load these, without the webhook parsing (shared/sources/source-settings.ts).
 */
export type SourceSettingsKind<Settings> = Pick<WebhookSource<Settings, unknown>, 'kind' | 'settingsSchema' | 'customerLinking'>;

/** A source with its settings bound, settings side only (ConfiguredSource fits it too). */
export interface ConfiguredSettings {
  readonly name: string;
  readonly kind: string;
  /** See WebhookSource.customerLinking. */
  customerLinking?(): CustomerLinking;
}

/** A sender's part of its thin events: the message key, its `kind` and its schema. */
export interface ThinPart {
  readonly key: string;
  readonly kind: string;
  readonly schema: z.ZodType;
}

/** What linking a sender's customer needs from its settings. */
export interface CustomerLinking {
  /** The membership external key holding the sender's customer id. */
  readonly externalKey: string;
  /** Days of purchases that found no member to credit once the customer is linked. */
  readonly retroCreditDays: number;
  /** The sender's shops this source serves (`<shop>.myshopify.com`); empty: not configured (any shop). */
  readonly shopDomains: readonly string[];
  /** Points spent as discount codes (Shopify). */
  readonly redemption?: RedemptionSettings;
  /** Points earned after payment (issue 53's earnAfter): the points page lists what is still provisional. */
  readonly earnsLater?: boolean;
  /**
   * How a member's record holds this sender's customer: under `externalKey` (default) or as the member's
   * `unique_id` (Smaregi `memberLookup: unique_id`). The points page finds a member's provisional till
   * sales by it.
   */
  readonly memberLookup?: 'external_id' | 'unique_id';
  /**
   * The sender's tills spend the membership balance (Smaregi `tillPoints: membership`): every points change
   * made elsewhere is mirrored to the member's till record, found this way.
   */
  readonly tillPoints?: TillPointsLinking;
}

/** How a member's till customer is found: the code under `externalKey` (or the member's unique_id), as Smaregi's code or id. */
export interface TillPointsLinking {
  readonly memberLookup: 'external_id' | 'unique_id';
  readonly customerField: 'customerCode' | 'customerId';
}

/** What a source needs its sender to deliver. */
export interface SourceSubscriptions {
  /** The API version of the deliveries and of the sender's admin API. */
  readonly apiVersion: string;
  /** Topics subscribed through the sender's API (`orders/paid`, ...). */
  readonly topics: readonly string[];
  /** Topics only the app configuration can subscribe (Shopify's compliance topics). */
  readonly complianceTopics: readonly string[];
  /** Access scopes the settings need besides the topics' (`write_discounts` for redemptions). */
  readonly scopes?: readonly string[];
}

export interface VersionMismatch {
  readonly expected: string;
  readonly received: string;
}

export interface NormaliseContext<Settings> {
  /** The configured source name (usually the kind; a second Shopify shop could be `shopify-eu`). */
  readonly source: string;
  readonly settings: Settings;
}

/** A source with its settings bound: what the intake works with. */
export interface ConfiguredSource<Event extends QueuedEvent = QueuedEvent> {
  readonly name: string;
  readonly kind: string;
  verify(request: SignedRequest, options: VerifyOptions): SourceError | null;
  /** parse + normalise. */
  read(request: SignedRequest): Outcome<Event>;
  /** Every event one delivery names (parse + normaliseMany, or normalise's one event): what intake queues. */
  readMany(request: SignedRequest): Outcome<Event[]>;
  /** See WebhookSource.quarantinesUnreadable. */
  readonly quarantinesUnreadable?: boolean;
  /** See WebhookSource.maxBodyBytes. */
  readonly maxBodyBytes?: number;
  /** See WebhookSource.subscriptions; absent for senders configured by hand. */
  subscriptions?(): SourceSubscriptions;
  /** See WebhookSource.versionMismatch. */
  versionMismatch?(headers: RequestHeaders): VersionMismatch | undefined;
  /** See WebhookSource.customerLinking. */
  customerLinking?(): CustomerLinking;
}
