/**
 * What every module's root error class is: an Error with a `kind` to branch on (errors are typed values,
 * not strings to grep). Each module keeps a root of its own extending it, with its class's `name` written
 * out (a minified bundle would otherwise print a mangled name). A leaf: it imports nothing.
 */
export abstract class KindedError extends Error {
  override readonly name: string = 'KindedError';
  abstract readonly kind: string;
}
