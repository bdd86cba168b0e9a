/** The Open API client: the public face of shared/openapi. See README.md in this folder. */
export {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_MIN_CALL_MS,
  createOpenApiClient,
  type OpenApiClient,
  type OpenApiClientOptions,
  type PageQuery,
} from './client.js';
export {
  CredentialsError,
  CredentialsSecret,
  environmentCredentials,
  fileCredentials,
  secretsManagerCredentials,
  staticCredentials,
  type CredentialsProvider,
  type OpenApiCredentials,
} from './credentials.js';
export {
  OPEN_API_ERROR_KINDS,
  OpenApiError,
  isOpenApiError,
  type Executed,
  type OpenApiErrorKind,
} from './errors.js';
export {
  ExpiryItem,
  ExpiryPage,
  MemberDetail,
  MemberInput,
  MemberList,
  MemberListItem,
  PointCalculationInput,
  PointGrantInput,
  PointHistoryPage,
  PointItem,
} from './schemas.js';
export { clearTokenCache } from './token-cache.js';
export { DEFAULT_TIMEOUTS, DEFAULT_USER_AGENT, type Timeouts } from './transport.js';
export {
  ValueFormatError,
  customFieldToInput,
  customFieldToStored,
  parseDisplayDate,
  parseDisplayNumber,
  type CustomFieldType,
} from './values.js';
export { DEFAULT_BUDGET_MARGIN_MS, createInvocationBudget, type InvocationBudget } from './budget.js';
export { pathParamProblem, type PathParamRule } from './paths.js';
export type { SecretReader } from '../config/index.js';
