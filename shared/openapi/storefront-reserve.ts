/**
 * Where the App Proxy's reserve of the shared budget is kept: on the endpoints the App Proxy calls
 * (functions/shopify-app-proxy.ts: the link request, shared/customers; the points page and redeeming,
 * shared/redemption), and nowhere else. The reserve is per endpoint, like the budget: on an endpoint
 * the storefront never calls (calculatePoints: a purchase's points, worker-only) it would only be held
 * back from the workers, 10 % of the busiest endpoint of a year-end sale (issue 54).
 */
import { ENDPOINTS } from './endpoints.js';

/** The Open API operations the App Proxy calls: a new call there must be added here, or it draws with no reserve. */
export const STOREFRONT_OPERATIONS = [
  'checkHandoverToken',
  'getMember',
  'getMemberByExternalId',
  'registerMember',
  'updateMember',
  'listPoints',
  'listPointExpiries',
  'grantPoints',
] as const satisfies readonly (keyof typeof ENDPOINTS)[];

const RESERVED = new Set<string>(STOREFRONT_OPERATIONS.map((name) => ENDPOINTS[name].route));

/** Whether the App Proxy's reserve is kept on this limiter key (the route, `GET /api/ext/users/{id}`). */
export function storefrontReserveOn(route: string): boolean {
  return RESERVED.has(route);
}

/** The limiter key (route) of an operation by its name, as the call counts name it. */
export function routeOf(operation: keyof typeof ENDPOINTS): string {
  return ENDPOINTS[operation].route;
}
