import type { MemberDetail, OpenApiClient, OpenApiError, PointCalculationInput, PointGrantInput, SendWindow } from '../../openapi/index.js';
import { isOpenApiError } from '../../openapi/index.js';

/**
 * The one place a state-changing points call is sent (tools/check-imports.ts refuses `grantPoints` and
 * `calculatePoints` anywhere else). Each carries the marker of its operation in `remarks`.
 */
export type PointsCall =
  | { kind: 'calculation'; memberId: string; input: Omit<PointCalculationInput, 'remarks'> }
  | { kind: 'grant'; memberId: string; input: Omit<PointGrantInput, 'remarks'> };

export type PointsCallApi = Pick<OpenApiClient, 'grantPoints' | 'calculatePoints'>;

/**
 * What a call's ending proves. `ran`: the answer says it ran. `not_run`: the answer proves it was never
 * executed (a 4xx, a connection never made, a request our client refused to send). `unknown`: anything
 * else (a timeout, a reset, any 5xx or page in front of the service): the request may still land,
 * however the failure looked, until the in-doubt horizon has passed since it was sent.
 */
export type Sent =
  | { ended: 'ran'; member: MemberDetail }
  | { ended: 'not_run'; error: OpenApiError }
  | { ended: 'unknown'; error: OpenApiError; sentAt: number };

/** The rule for what an error proves, in one place: only an answer that says so proves a call did not run. */
export const provesNotRun = (e: OpenApiError): boolean => e.executed === 'no';

export async function sendPointsCall(
  api: PointsCallApi,
  call: PointsCall,
  marker: string,
  window: SendWindow,
  clock: () => number,
): Promise<Sent> {
  const sentAt = clock();
  try {
    const member =
      call.kind === 'calculation'
        ? await api.calculatePoints(call.memberId, { ...call.input, remarks: marker }, window)
        : await api.grantPoints(call.memberId, { ...call.input, remarks: marker }, window);
    return { ended: 'ran', member };
  } catch (e) {
    if (!isOpenApiError(e)) throw e;
    return provesNotRun(e) ? { ended: 'not_run', error: e } : { ended: 'unknown', error: e, sentAt };
  }
}
