/** The request body as the exact bytes the sender signed. */
export type BodyResult = { ok: true; bytes: Buffer } | { ok: false; kind: 'body_too_large' | 'malformed_body'; message: string };

/** Default size limit of a webhook body: 256 KiB. */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes API Gateway's body (text, or base64 when `isBase64Encoded`) and enforces the size limit.
 * An oversized base64 body is refused before it is decoded.
 */
export function readBody(body: string | undefined, isBase64Encoded: boolean, maxBytes: number): BodyResult {
  const text = body ?? '';
  const tooLarge = { ok: false, kind: 'body_too_large', message: `body exceeds ${maxBytes} bytes` } as const;
  if (isBase64Encoded) {
    if (Math.floor((text.length * 3) / 4) - 2 > maxBytes) return tooLarge;
    if (text.length % 4 !== 0 || !BASE64.test(text)) {
      return { ok: false, kind: 'malformed_body', message: 'body is marked base64 but is not base64' };
    }
    const bytes = Buffer.from(text, 'base64');
    return bytes.length > maxBytes ? tooLarge : { ok: true, bytes };
  }
  // A UTF-16 code unit is at least one UTF-8 byte: a longer string is certainly too large.
  if (text.length > maxBytes) return tooLarge;
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length > maxBytes ? tooLarge : { ok: true, bytes };
}
