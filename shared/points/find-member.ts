import type { CustomerRef } from '../events/index.js';
import type { MemberDetail } from '../openapi/index.js';
import type { PointsApi } from './deps.js';

/** The member a customer reference names: by the membership number itself, or by an external id. */
export function findMember(openapi: PointsApi, customer: CustomerRef): Promise<MemberDetail> {
  return customer.lookup === 'unique_id'
    ? openapi.getMemberByUniqueId(customer.externalId)
    : openapi.getMemberByExternalId(customer.externalKey, customer.externalId);
}
