import { isOpenApiError } from '../openapi/index.js';
import type { PointsApi } from './deps.js';

/** Told about every Open API call: which operation, how long it took, and the error kind if it failed. */
export type ApiCallObserver = (call: { operation: keyof PointsApi; ms: number; errorKind?: string }) => void;

/** Wraps the calls processing makes, to measure upstream latency without touching the client. */
export function instrumentPointsApi(api: PointsApi, observe: ApiCallObserver, now: () => number = performance.now.bind(performance)): PointsApi {
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
        observe({ operation, ms: now() - started, errorKind: isOpenApiError(e) ? e.kind : 'unexpected' });
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
