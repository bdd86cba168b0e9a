/**
 * The guard in front of the unauthenticated local admin surfaces (`/__local/*` of `npm start`,
 * `/__emulator/*` of the emulator). Binding to 127.0.0.1 keeps other machines out, but not a web
 * page in the developer's browser:
 * - DNS rebinding: a page on rebind.evil.example whose name now resolves to 127.0.0.1 calls the
 *   port as same-origin; its Host header still names the page's host. Only a loopback Host is served.
 * - Cross-site requests: a browser puts an Origin header on every cross-origin POST (and on CORS
 *   reads); our own callers (Node fetch, curl, the CLI) send none. Any Origin is refused.
 * - Form posts need no preflight: a body must be declared `application/json`. An empty POST (the
 *   contract's `POST /__emulator/reset` without a body) stays allowed: a browser sending one also
 *   sends an Origin.
 */

const LOOPBACK_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?$/i;

export interface AdminRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Whether the request carries a body (a Content-Length above 0, or chunked). */
  readonly hasBody: boolean;
}

export interface AdminRefusal {
  readonly status: 403 | 415;
  readonly error: string;
}

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/**
 * Why an admin request is refused, or undefined when it may be served. `sameOrigin` (the operator
 * console, a page served by these routes) also admits an Origin that is exactly `http://<the loopback
 * Host>`: a browser puts it on the page's own POSTs, and no other site can produce it.
 */
export function adminRefusal(req: AdminRequest, options: { sameOrigin?: boolean } = {}): AdminRefusal | undefined {
  const host = first(req.headers.host)?.trim() ?? '';
  if (!LOOPBACK_HOST.test(host)) {
    return { status: 403, error: 'admin routes answer only to a loopback Host (127.0.0.1, localhost or [::1], with the port)' };
  }
  const origin = first(req.headers.origin);
  if (origin !== undefined && !(options.sameOrigin === true && origin.toLowerCase() === `http://${host.toLowerCase()}`)) {
    return { status: 403, error: 'admin routes refuse requests with an Origin header (cross-site)' };
  }
  if (req.hasBody) {
    const type = first(req.headers['content-type'])?.split(';', 1)[0]?.trim().toLowerCase();
    if (type !== 'application/json') return { status: 415, error: 'admin requests with a body must be Content-Type: application/json' };
  }
  return undefined;
}

/** Whether a Node request carries a body, from its headers. */
export function declaresBody(headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  const length = Number(first(headers['content-length']) ?? '0');
  return (Number.isFinite(length) && length > 0) || headers['transfer-encoding'] !== undefined;
}
