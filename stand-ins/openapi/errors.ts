/**
 * The emulator's errors: the Open API's failure answers (typed values the handlers throw and the server
 * turns into HTTP), and a configuration or command line it cannot run with.
 */
import { MESSAGES } from '../../shared/openapi/index.js';
import { KindedError } from '../../shared/errors/index.js';

export type ApiErrorKind =
  | 'token_failed'
  | 'invalid_token'
  | 'method_not_allowed'
  | 'server'
  | 'page_not_found'
  | 'not_contracted'
  | 'member_not_found'
  | 'external_id_not_found'
  | 'points_not_available'
  | 'validation'
  | 'insufficient_points'
  | 'handover_token_expired'
  | 'handover_token_invalid'
  | 'login_failed'
  | 'account_locked'
  | 'device_change'
  | 'bad_request';

/** The root of the emulator's errors. */
export abstract class EmulatorError extends KindedError {
  override readonly name: string = 'EmulatorError';
}

export class ApiError extends EmulatorError {
  override readonly name = 'ApiError';
  constructor(
    readonly kind: ApiErrorKind,
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(kind);
  }
}

/** A configuration file the emulator cannot run: the message names the client or field. */
export class ConfigError extends EmulatorError {
  override readonly name = 'ConfigError';
  readonly kind = 'config_invalid' as const;
}

/** A bad command line: the message, then the usage. */
export class UsageError extends EmulatorError {
  override readonly name = 'UsageError';
  readonly kind = 'usage' as const;
}

const structured = (message: string, code: string) => ({
  status: false,
  errors: [message],
  all_errors: [message],
  error_code: code,
});
const simple = (errors: unknown) => ({ status: false, errors });

export const apiErrors = {
  /** 400 and 401 of the token endpoint carry the same body; the 401 adds the Basic challenge. */
  tokenBadRequest: () => new ApiError('token_failed', 400, structured(MESSAGES.authenticationFailed, 'API-OPENAPI16')),
  tokenUnauthorized: () =>
    new ApiError('token_failed', 401, structured(MESSAGES.authenticationFailed, 'API-OPENAPI16'), {
      'www-authenticate': 'Basic realm="token"',
    }),
  /** The Open API's odd one: JSON body, HTML content type. */
  invalidToken: () =>
    new ApiError('invalid_token', 401, structured(MESSAGES.authenticationFailed, 'API-OPENAPI16'), {
      'www-authenticate': 'Bearer error="invalid_token"',
      'content-type': 'text/html; charset=UTF-8',
    }),
  methodNotAllowed: () => new ApiError('method_not_allowed', 405, structured(MESSAGES.methodNotAllowed, 'API-OPENAPI09')),
  server: () => new ApiError('server', 500, structured(MESSAGES.internalServerError, 'API-OPENAPI21')),
  pageNotFound: () => new ApiError('page_not_found', 404, structured(MESSAGES.pageNotFound, 'API-OPENAPI08')),
  notContracted: () => new ApiError('not_contracted', 400, simple(MESSAGES.notContracted)),
  memberNotFound: () => new ApiError('member_not_found', 400, simple(MESSAGES.memberNotFound)),
  externalIdNotFound: () => new ApiError('external_id_not_found', 400, simple(MESSAGES.externalIdNotFound)),
  pointsNotAvailable: () => new ApiError('points_not_available', 400, simple(MESSAGES.notAvailableForPoints)),
  validation: (messages: string[]) => new ApiError('validation', 400, simple(messages)),
  insufficientPoints: () => new ApiError('insufficient_points', 400, simple({ point: [MESSAGES.insufficientPoints] })),
  handoverTokenExpired: () => new ApiError('handover_token_expired', 400, simple(MESSAGES.handoverTokenExpired)),
  handoverTokenInvalid: () => new ApiError('handover_token_invalid', 400, simple(MESSAGES.handoverTokenInvalid)),
  loginFailed: () => new ApiError('login_failed', 400, simple(MESSAGES.loginFailed)),
  accountLocked: () => new ApiError('account_locked', 400, simple(MESSAGES.accountLocked)),
  deviceChange: () => new ApiError('device_change', 400, simple(MESSAGES.deviceChange)),
  /** A body the server cannot read at all (malformed JSON, ...). */
  badRequest: (message: string) => new ApiError('bad_request', 400, simple([message])),
};
