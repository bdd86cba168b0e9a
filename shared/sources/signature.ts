import { createHmac, timingSafeEqual } from 'node:crypto';

/** HMAC-SHA256 of the given bytes. */
export function hmacSha256(secret: string, ...parts: (Buffer | string)[]): Buffer {
  const mac = createHmac('sha256', secret);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/**
 * Constant-time comparison of a computed MAC with the one the sender claimed. Lengths are checked
 * first (timingSafeEqual needs equal lengths; a MAC's length is not secret).
 */
export function macEquals(expected: Buffer, claimed: Buffer): boolean {
  return expected.length === claimed.length && timingSafeEqual(expected, claimed);
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const HEX = /^[0-9a-fA-F]+$/;

/** Bytes of a base64 text, or undefined when it is not canonical base64. */
export function decodeBase64(text: string): Buffer | undefined {
  if (!BASE64.test(text) || text.length % 4 !== 0) return undefined;
  return Buffer.from(text, 'base64');
}

/** Bytes of a hex text, or undefined when it is not hex of even length. */
export function decodeHex(text: string): Buffer | undefined {
  if (!HEX.test(text) || text.length % 2 !== 0) return undefined;
  return Buffer.from(text, 'hex');
}
