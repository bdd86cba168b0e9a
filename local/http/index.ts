export { startLocalHttpServer } from './server.js';
export type { ApiHandler, LocalHttpServer, LocalHttpServerOptions, LocalRoute } from './server.js';
export { apiGatewayTime, toApiGatewayEvent, type IncomingRequest } from './api-gateway-event.js';
export { fromLambdaResult, gatewayError, jsonAnswer, type HttpAnswer } from './api-gateway-result.js';
