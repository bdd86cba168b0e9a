import { isOpenApiError, isUpstreamFailureKind } from '../openapi/index.js';
import type { PointsApi } from './deps.js';

/**
 * Told about every Open API call: which operation, how long it took, and if it failed, the error kind
 * (`unexpected` when not an OpenApiError) and whether that kind is a failure of the upstream service.
 */
export type ApiCallObserver = (call: { operation: keyof PointsApi; ms: number; errorKind?: string; upstreamFailure?: boolean }) => void;

/** Every Open API operation processing calls: one endpoint each, each with its own rate budget. */
export const POINTS_API_OPERATIONS = [
  'getMemberByExternalId',
  'getMemberByUniqueId',
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
        observe({ operation, ms: now() - started, errorKind, upstreamFailure: isUpstreamFailureKind(errorKind) });
        throw e;
      }
    };
  return {
    getMemberByExternalId: wrap('getMemberByExternalId'),
    getMemberByUniqueId: wrap('getMemberByUniqueId'),
    getMember: wrap('getMember'),
    listPoints: wrap('listPoints'),
    grantPoints: wrap('grantPoints'),
    calculatePoints: wrap('calculatePoints'),
  };
}
