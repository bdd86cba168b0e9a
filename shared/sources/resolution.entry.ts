/**
 * The worker's half of the sender registrations (a light entry: the intake's bundle imports
 * shared/sources/index.ts and stays without the senders' API clients). Each sender kind whose events
 * carry a part of its own (`thinPart` in its registration) is listed here with its resolution; a unit
 * test (test/unit/shared/sources/registrations.test.ts) checks that none is missing.
 */
import type { AnyResolution } from './resolution.js';
import { smaregiResolution } from './smaregi/resolution.js';
import { squareResolution } from './square/resolution.js';

export const SENDER_RESOLUTIONS: readonly AnyResolution[] = [smaregiResolution, squareResolution];

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
