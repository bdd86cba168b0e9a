/**
 * The worker's half of the sender registrations (a light entry: the intake's bundle imports
 * shared/sources/index.ts and stays without the senders' API clients): the resolution of every kind
 * whose folder has a resolution.ts, written by `npm run gen:senders`. A unit test
 * (test/unit/shared/sources/registrations.test.ts) checks that every kind whose events carry a part of
 * its own (`thinPart` in its registration) has one.
 */
import type { AnyResolution } from './resolution.js';
// gen:senders imports: written by `npm run gen:senders` from SENDER_KINDS (senders.ts); do not edit
import { smaregiResolution } from './smaregi/resolution.js';
import { squareResolution } from './square/resolution.js';
// gen:senders end

export const SENDER_RESOLUTIONS: readonly AnyResolution[] = [
  // gen:senders table: written by `npm run gen:senders` from SENDER_KINDS (senders.ts); do not edit
  smaregiResolution,
  squareResolution,
  // gen:senders end
];

export {
  type AnyResolution,
  instrumentSenders,
  type ResolveDeps,
  senderClientsFromEnv,
  type SenderClients,
  type SenderResolution,
  type SenderResolvers,
  withSenderResolution,
} from './resolution.js';
