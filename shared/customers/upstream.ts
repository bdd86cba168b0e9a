import { isOpenApiError, OpenApiError } from '../openapi/index.js';

/** Any failure as the client's error; something else (a bug, a crash) counts as an unknown outcome. */
export function asKnownError(e: unknown): OpenApiError {
  if (isOpenApiError(e)) return e;
  return new OpenApiError({ kind: 'network', executed: 'unknown', messages: [e instanceof Error ? e.message : 'unexpected failure'] });
}
