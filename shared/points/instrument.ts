import { isOpenApiError, type OpenApiErrorKind } from '../openapi/index.js';
import type { PointsApi } from './deps.js';

/**
 * The error kinds that mean the membership service failed us: unreachable or faulty, refusing our
 * credentials or contract, or answering outside its documented answers (`invalid_response`, see
 * shared/openapi/README.md). The others are answers about the request (customer unknown, not enough
 * points, validation...): the service worked, so the upstream failure rate alarm must not count them.
 */
const UPSTREAM_FAILURE_KINDS: ReadonlySet<string> = new Set([
  'network',
  'timeout',
  'server',
  'invalid_token',
  'authentication_failed',
  'credentials_unavailable',
  'not_contracted',
  'invalid_response',
  'method_not_allowed',
  'not_found',
] satisfies OpenApiErrorKind[]);

/** Whether a failed call's error kind is a failure of the upstream service (see UPSTREAM_FAILURE_KINDS). */
function isUpstreamFailure(errorKind: string): boolean {
  return UPSTREAM_FAILURE_KINDS.has(errorKind);
}

/**
 * Told about every Open API call: which operation, how long it took, and if it failed, the error kind
 * (`unexpected` when not an OpenApiError) and whether that kind is a failure of the upstream service.
 */
export type ApiCallObserver = (call: { operation: keyof PointsApi; ms: number; errorKind?: string; upstreamFailure?: boolean }) => void;

/** Every Open API operation processing calls: one endpoint each, each with its own rate budget. */
export const POINTS_API_OPERATIONS = [
  'getMemberByExternalId',
  'getMember',
  'listPoints',
  'grantPoints',
  'calculatePoints',
] as const satisfies readonly (keyof PointsApi)[];

/** Wraps the calls processing makes, to measure upstream latency without touching the client. */
export function instrumentPointsApi(
  api: PointsApi,
  observe: ApiCallObserver,
  now: () => number = performance.now.bind(performance),
): PointsApi {
  const wrap =
    <K extends keyof PointsApi>(operation: K) =>
    async (...args: Parameters<PointsApi[K]>): Promise<Awaited<ReturnType<PointsApi[K]>>> => {
      const started = now();
      try {
        const fn = api[operation] as (...a: Parameters<PointsApi[K]>) => Promise<Awaited<ReturnType<PointsApi[K]>>>;
        const result = await fn.apply(api, args);
        observe({ operation, ms: now() - started });
        return result;
      } catch (e) {
        const errorKind = isOpenApiError(e) ? e.kind : 'unexpected';
        observe({ operation, ms: now() - started, errorKind, upstreamFailure: isUpstreamFailure(errorKind) });
        throw e;
      }
    };
  return {
    getMemberByExternalId: wrap('getMemberByExternalId'),
    getMember: wrap('getMember'),
    listPoints: wrap('listPoints'),
    grantPoints: wrap('grantPoints'),
    calculatePoints: wrap('calculatePoints'),
  };
}
