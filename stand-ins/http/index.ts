/**
 * The one small HTTP helper every stand-in shares (the Open API emulator, Shopify Admin, Square Orders,
 * Smaregi), on Fastify: the server with a body limit, raw bodies, JSON answers, the test surface behind
 * the admin guard (shared/http/admin-guard.ts), faults, listening and closing.
 */
export { answerJson, type JsonAnswer, type JsonHandler, routeAllTo, sendJson } from './json-answer.js';
export { listen } from './listen.js';
export { createStandInServer, readRawBodies, type RunningServer, serve, type StandInServerOptions } from './server.js';
export { faultFrom, serveStandIn, type StandInFault, standInAdmin } from './stand-in.js';
