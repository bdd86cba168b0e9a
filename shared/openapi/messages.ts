/** The error texts the spec fixes word for word: the only texts the client recognises (classify.ts). */
export const SPEC_FIXED_TEXTS = {
  notContracted: 'Not contracted',
  memberNotFound: 'Member is not found',
  externalIdNotFound: 'External ID not found',
  notAvailableForPoints: 'Not available for points',
  handoverTokenExpired: 'Token is expired',
  handoverTokenInvalid: 'Invalid Token',
} as const;

/**
 * Error texts of the membership service. The spec names some exactly ("Not contracted", "Member is not
 * found", ...) and leaves the rest "not shown"; for those, these are the emulator's choices. The emulator
 * answers with them. The client recognises only SPEC_FIXED_TEXTS; every other text here is the
 * emulator's wording, which a real service may word differently, so nothing reads it.
 */
export const MESSAGES = {
  ...SPEC_FIXED_TEXTS,
  authenticationFailed: 'Authentication failed',
  methodNotAllowed: 'Method Not Allowed',
  internalServerError: 'Internal Server Error',
  pageNotFound: 'Page Not Found',
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
  // Further validation texts (the spec: "Complete per-endpoint validation messages: not shown"). Field
  // names appear as Laravel writes them: underscores become spaces.
  invalidJson: 'The request body is not valid JSON.',
  mustBeString: (field: string) => `The ${field} must be a string.`,
  maxLength: (field: string, max: number) => `The ${field} may not be greater than ${max} characters.`,
  minLength: (field: string, min: number) => `The ${field} must be at least ${min} characters.`,
  singleByte: (field: string) => `The ${field} may only contain single-byte characters.`,
  zeroOrOne: (field: string) => `The ${field} must be 0 or 1.`,
  loginedAtFormat: 'The logined at does not match the format Y-m-d H:i:s.',
  externalIdsObject: 'The external ids must be an object.',
  externalIdRequired: (key: string) => `The external_ids.${key} field is required.`,
  externalIdString: (key: string) => `The external_ids.${key} must be a string.`,
  externalIdFormat: (key: string) => `The external_ids.${key} format is invalid.`,
  externalIdMax: (key: string) => `The external_ids.${key} may not be greater than 255 characters.`,
  rankInvalid: 'The selected rank is invalid.',
  rankLocked: 'The rank cannot be changed while the rank feature is enabled.',
  expiredAtFormat: 'The expired at does not match the format Y-m-d.',
  expiredAtPast: 'The expired at must be a date after or equal to today.',
  perPageRange: 'The per page must be an integer between 1 and 1000.',
  pageMin: 'The page must be an integer of at least 1.',
  idRequired: 'The id field is required.',
  // Requests the HTTP layer cannot read (the emulator's choices; the spec shows none of them).
  pathEncoding: (field: string) => `The ${field} must be valid percent-encoded UTF-8.`,
  bodyTooLarge: (bytes: number) => `The request body may not be greater than ${bytes} bytes.`,
  bodyUnreadable: 'The request body could not be read.',
  requestMalformed: 'The request is not valid HTTP.',
  requestHeadTooLarge: 'The request line and headers are too large.',
  requestTimeout: 'The request did not arrive in time.',
} as const;

/** The point grant's lower bound (the spec says one exists but does not show it): the emulator's choice. */
export const POINT_MIN = -999_999_999;
/** The calculation's amount ceiling (spec). */
export const AMOUNT_MAX = 999_999_999;
