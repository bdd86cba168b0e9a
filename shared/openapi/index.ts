/** The Open API client (calls to the membership service, credentials, errors) and the service's messages and value formats, which the emulator shares. See README.md in this folder. */
export { DEFAULT_MIN_CALL_MS, type OpenApiClient, type OpenApiClientOptions } from './api.js';
export { createInvocationBudget, type InvocationBudget } from './budget.js';
export type { CallLimiter } from './rate-limiter.js';
export { type BudgetClass, type BudgetStore, classCaps, createSharedBudget, MINUTE_MS, type OwnCount } from './shared-budget.js';
export {
  afterLease,
  FIRST_SLICE,
  leaseWant,
  lendWaitMs,
  MAX_SLICE,
  openSlice,
  reopenIfLent,
  type Slice,
  slotExpectedInMs,
  takeSlot,
} from './budget-slices.js';
export { routeOf, STOREFRONT_OPERATIONS, storefrontReserveOn } from './storefront-reserve.js';
export { CLOSED_SEND_WINDOW, type SendWindow } from './send-window.js';
export { ENDPOINT_NAMES } from './endpoints.js';
export { createOpenApiClient } from './client.js';
export {
  type CredentialsProvider,
  credentialsFromEnv,
  plainCredentialsFromEnv,
  fileCredentials,
  type OpenApiCredentials,
  secretsManagerCredentials,
  staticCredentials,
} from './credentials.js';
export {
  CONFIGURATION_ERROR_KINDS,
  type ConfigurationErrorKind,
  isConfigurationKind,
  isOpenApiError,
  isOutageError,
  isOutageKind,
  isUpstreamFailureKind,
  OPEN_API_ERROR_KINDS,
  OpenApiError,
  OpenApiModuleError,
  ValueFormatError,
  type OpenApiErrorKind,
  OUTAGE_ERROR_KINDS,
  type OutageErrorKind,
  UPSTREAM_FAILURE_KINDS,
} from './errors.js';
export { type PathParamRule, pathParamProblem } from './paths.js';
export { AMOUNT_MAX, MESSAGES, POINT_MIN } from './messages.js';
export { Answers, type MemberDetail, type PointCalculationInput, type PointGrantInput, type PointItem } from './schemas.js';
export { clearTokenCache } from './token-cache.js';
export { DEFAULT_TIMEOUTS, DEFAULT_USER_AGENT } from '../http-client/index.js';
export { customFieldToInput, customFieldToStored, parseDisplayDate, parseDisplayNumber } from './values.js';
export type { SecretReader } from '../config/index.js';
