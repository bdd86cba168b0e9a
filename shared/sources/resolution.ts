import type * as z from 'zod';
import type { SecretReader } from '../config/index.js';
import {
  joinNextSteps,
  type NextSteps,
  type ProcessOutcome,
  type PurchaseEvent,
  type RefundEvent,
  withNextSteps,
} from '../events/index.js';
import type { TillMirrors, TillReturns } from '../ledger/index.js';
import {
  createMemberMemo,
  type EarnsEvent,
  invalidEvent,
  type MemberMemo,
  type MetricsSink,
  type Processor,
  type ProcessContext,
  type ProcessorDeps,
  runEarns,
} from '../points/index.js';

/**
 * A thin event's resolution: a sender whose message names the sale only (Smaregi's transaction ids) or
 * leaves its amount to another record (Square's order) turns it into canonical events before the points
 * protocol runs. The points core sees purchases and refunds only; the sender's part of the message, its
 * schema and its API client stay in its folder (shared/sources/<kind>/resolution.ts).
 */

/**
 * What a resolution reads besides its own API: the ledger's orders (and refund records), the membership
 * service, a logger; and where a till's returns without their sale are kept (Smaregi), with the metric counting them.
 */
export interface ResolveDeps {
  readonly ledger: Pick<ProcessorDeps['ledger'], 'getOrder' | 'getRefund' | 'isRedacted'> &
    Partial<Pick<ProcessorDeps['ledger'], 'getBonus'>>;
  readonly openapi: ProcessorDeps['openapi'];
  readonly logger?: ProcessorDeps['logger'];
  readonly tillReturns?: TillReturns | undefined;
  /** Each points change mirrored to a till's point record, once (Smaregi tillPoints membership). */
  readonly tillMirrors?: TillMirrors | undefined;
  /** The engine's in-doubt horizon (IN_DOUBT_SECONDS), which a mirror step sent but unsettled waits out too. */
  readonly inDoubtSeconds?: number | undefined;
  readonly metrics?: MetricsSink | undefined;
  /**
   * The stage's campaign rules, as the processor has them: a purchase credited in this message took its
   * campaigns from these, so with none there is no bonus of it to mirror. Undefined: not known here (its order is read).
   */
  readonly campaigns?: ProcessorDeps['settings']['campaigns'];
}

/** A sender's API client for a configured source name; undefined: this source has no access configured. */
export type SenderClients<Client> = (source: string) => Client | undefined;

/** The protocol for the canonical events a resolution runs itself (Smaregi: a state earns several). */
export interface CanonicalRun {
  purchase(event: PurchaseEvent): Promise<ProcessOutcome>;
  refund(event: RefundEvent): Promise<ProcessOutcome>;
  /** "This order now earns X": the points core reaches it from the order's chain in the ledger (shared/points/earns.ts). */
  earns(event: EarnsEvent): Promise<ProcessOutcome>;
  /** The members these runs found (and their balance after the last call): the message looks each up once. */
  members: MemberMemo;
}

/** What the resolution gives back: a canonical purchase for the protocol, or the message's answer already. */
export type Resolved =
  | { readonly event: PurchaseEvent; readonly outcome?: undefined }
  | { readonly event?: undefined; readonly outcome: ProcessOutcome };

export interface ResolveContext<Client> {
  /** This source's client; undefined when the worker has no access for it (the resolution says what is missing). */
  readonly client: Client | undefined;
  readonly deps: ResolveDeps;
  readonly run: CanonicalRun;
}

export interface SenderResolution<Client, Thin extends PurchaseEvent = PurchaseEvent> {
  /** The registered sender kind (`smaregi`): its clients are keyed by it. */
  readonly sender: string;
  /** The queued message's key of the sender's part (`stateFrom`, `amountFrom`): messages already queued keep it. */
  readonly key: string;
  /** The part's `kind`. */
  readonly kind: string;
  /** The thin event's schema (the canonical purchase with the sender's part), built at first use. */
  thinEvent(): z.ZodType<Thin>;
  /** The sender's clients from the environment (built when first called for a source), or undefined when not configured. */
  clientsFromEnv(env: NodeJS.ProcessEnv, secrets: () => SecretReader): SenderClients<Client> | undefined;
  /** The metric a failed call of the sender's API counts in (its alarm's; the registration's ops needs name it). */
  readonly apiErrorsMetric?: string;
  /** The clients with each failed call counted under `apiErrorsMetric`. */
  instrument?(clients: SenderClients<Client>, onFailure: () => void): SenderClients<Client>;
  resolve(thin: Thin, context: ResolveContext<Client>): Promise<Resolved>;
}

// biome-ignore lint/suspicious/noExplicitAny: each resolution keeps its own Client/Thin types; only it reads them
export type AnyResolution = SenderResolution<any, any>;

/** Each resolving sender's resolution, and its clients by sender kind (absent: the worker has no access to that sender). */
export interface SenderResolvers {
  readonly resolutions: readonly AnyResolution[];
  readonly clients: Readonly<Record<string, SenderClients<unknown> | undefined>>;
}

function thinResolution(resolutions: readonly AnyResolution[], input: unknown): AnyResolution | undefined {
  if (typeof input !== 'object' || input === null || (input as { type?: unknown }).type !== 'purchase') return undefined;
  return resolutions.find((r) => (input as Record<string, unknown>)[r.key] !== undefined);
}

/**
 * `next` with thin events resolved before it: a purchase carrying a sender's part is checked against its
 * sender's schema, admitted by the message checks (too old: skipped, as any event), resolved by its sender,
 * then processed as the canonical purchase it became (or answered by the resolution itself). Everything
 * else goes to `next` untouched.
 */
export function withSenderResolution(next: Processor, senders: SenderResolvers, deps: ResolveDeps): Processor {
  async function resolved(resolution: AnyResolution, thin: PurchaseEvent, context: ProcessContext | undefined): Promise<Resolved> {
    const clients = senders.clients[resolution.sender];
    // What the canonical runs leave for the queue (refunds to set aside) follows the message's answer, whichever it is.
    const steps: NextSteps = {};
    const members = createMemberMemo();
    const purchase = async (event: PurchaseEvent) => collectNext(await next.canonical.purchase(event, { ...context, members }), steps);
    const refund = async (event: RefundEvent) => {
      // A debit moves the balance outside the purchases' answers: the mirror reads it afresh.
      members.forgetBalances();
      return collectNext(await next.canonical.refund(event), steps);
    };
    const run: CanonicalRun = {
      purchase,
      refund,
      earns: (event) => runEarns(event, deps.ledger, { purchase, refund }),
      members,
    };
    const answer = await resolution.resolve(thin, { client: clients?.(thin.source), deps, run });
    if (answer.event !== undefined || (!steps.setAside && !steps.handOver)) return answer;
    return { outcome: withNextSteps(answer.outcome, steps) };
  }

  return {
    ...next,
    async creditLinkedPurchase(event, context) {
      const resolution = thinResolution(senders.resolutions, event);
      if (!resolution) return next.creditLinkedPurchase(event, context);
      const parsed = resolution.thinEvent().safeParse(event);
      if (!parsed.success) return invalidEvent(parsed.error);
      const outcome = await resolved(resolution, parsed.data, context);
      return outcome.event === undefined ? outcome.outcome : next.creditLinkedPurchase(outcome.event, context);
    },
    async process(input, context) {
      const resolution = thinResolution(senders.resolutions, input);
      if (!resolution) return next.process(input, context);
      const parsed = resolution.thinEvent().safeParse(input);
      if (!parsed.success) return invalidEvent(parsed.error);
      const thin = parsed.data;
      // A handed-over purchase is credited whatever its age (as the processor does); any other is checked first.
      const refused = thin.customerLinked ? undefined : next.canonical.admit(thin);
      if (refused) return refused;
      const outcome = await resolved(resolution, thin, context);
      return outcome.event === undefined ? outcome.outcome : next.process(outcome.event, context);
    },
  };
}

/** Takes a canonical run's `next` off its outcome into `steps` (the resolution combines outcomes; the steps must not be lost). */
function collectNext(outcome: ProcessOutcome, steps: NextSteps): ProcessOutcome {
  if (!outcome.next) return outcome;
  const { next, ...rest } = outcome;
  Object.assign(steps, joinNextSteps(steps, next));
  return rest;
}

/** Every resolving kind's clients from the environment; secrets read through one reader, made at first need. */
export function senderClientsFromEnv(
  resolutions: readonly AnyResolution[],
  env: NodeJS.ProcessEnv,
  secrets: () => SecretReader,
): SenderResolvers['clients'] {
  const clients: Record<string, SenderClients<unknown> | undefined> = {};
  for (const resolution of resolutions) {
    const built = resolution.clientsFromEnv(env, secrets);
    if (built) clients[resolution.sender] = built;
  }
  return clients;
}

/** The clients with each sender's failed calls counted under its API errors metric (its alarm's). */
export function instrumentSenders(
  resolutions: readonly AnyResolution[],
  clients: SenderResolvers['clients'],
  onFailure: (metric: string) => void,
): SenderResolvers['clients'] {
  const instrumented: Record<string, SenderClients<unknown> | undefined> = { ...clients };
  for (const { sender, instrument, apiErrorsMetric } of resolutions) {
    const built = clients[sender];
    if (built && instrument && apiErrorsMetric) instrumented[sender] = instrument(built, () => onFailure(apiErrorsMetric));
  }
  return instrumented;
}
