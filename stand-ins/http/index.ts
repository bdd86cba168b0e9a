/**
 * The one small HTTP helper every shop-side stand-in shares (Shopify Admin, Square Orders, Smaregi): a
 * JSON server, the test surface behind the admin guard (shared/http/admin-guard.ts), faults, listening.
 */
export { createJsonServer, type JsonAnswer } from './json-server.js';
export { listen } from './listen.js';
export { faultFrom, serveStandIn, type StandInFault, standInAdmin } from './stand-in.js';
