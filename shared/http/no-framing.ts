/**
 * Sent with every answer of the operator console (local and stage): no page of another origin may
 * frame it (a framed "Redrive all" can be clicked through an overlay), and no answer is read as
 * another type than it says.
 */
export const NO_FRAMING_HEADERS: Readonly<Record<string, string>> = {
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
};
