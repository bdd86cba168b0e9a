export { createOpenApiClient, type OpenApiClient, staticCredentials } from '../../../shared/openapi/index.js';
export { purchaseMarker as purchaseMarkerOf } from '../../../shared/points/index.js';
