export { startLocalHttpServer } from './server.js';
export type { ApiHandler, LocalHttpServer, LocalHttpServerOptions, LocalRoute } from './server.js';
export { apiGatewayTime, toApiGatewayEvent, type IncomingRequest } from './api-gateway-event.js';
export { fromLambdaResult, gatewayError, jsonAnswer, type HttpAnswer } from './api-gateway-result.js';
export { createJsonServer, type JsonAnswer } from '../../stand-ins/http/json-server.js';
export { faultFrom, serveStandIn, type StandInFault, standInAdmin } from '../../stand-ins/http/stand-in.js';
