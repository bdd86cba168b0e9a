/**
 * Error texts of the membership service. The spec names some exactly ("Not contracted", "Member is not
 * found", ...) and leaves the rest "not shown"; for those, these are the emulator's choices. The emulator
 * answers with them and the client classifies by them, so both import this one list: a change here
 * changes both sides. Only the client reads message strings; nothing downstream of it does.
 */
export const MESSAGES = {
  authenticationFailed: 'Authentication failed',
  methodNotAllowed: 'Method Not Allowed',
  internalServerError: 'Internal Server Error',
  pageNotFound: 'Page Not Found',
  notContracted: 'Not contracted',
  memberNotFound: 'Member is not found',
  externalIdNotFound: 'External ID not found',
  notAvailableForPoints: 'Not available for points',
  handoverTokenExpired: 'Token is expired',
  handoverTokenInvalid: 'Invalid Token',
  loginFailed: 'The login ID or password is incorrect.',
  accountLocked: 'This account is locked.',
  deviceChange: 'This account is in the device change procedure.',
  loginIdRequired: 'The login id field is required.',
  insufficientPoints: 'The point exceeds the points held.',
  pointInteger: 'The point must be an integer.',
  pointRequired: 'The point field is required.',
  pointMin: (min: number) => `The point must be at least ${min}.`,
  amountInteger: 'The amount must be an integer.',
  amountRequired: 'The amount field is required.',
  amountMax: (max: number) => `The amount may not be greater than ${max}.`,
  amountMin: 'The amount must be at least 0.',
  uniqueIdUsed: 'The unique id has already been taken.',
  loginIdUsed: 'The login id has already been taken.',
  externalIdUsed: (key: string) => `The external_ids.${key} has already been taken.`,
  passwordRequired: 'The password field is required.',
  loginedAtRequired: 'The logined at field is required when logined is 1.',
  customFieldsNotConfigured: 'The custom field setting for member data is missing.',
  numberFormat: (column: string) => `The ${column} must be a number.`,
  dateFormat: (column: string) => `The ${column} does not match the format Y-m-d.`,
  dateTimeFormat: (column: string) => `The ${column} does not match the format Y-m-d H:i.`,
} as const;

/** The point grant's lower bound (the spec says one exists but does not show it): the emulator's choice. */
export const POINT_MIN = -999_999_999;
/** The calculation's amount ceiling (spec). */
export const AMOUNT_MAX = 999_999_999;
