/**
 * Markers put in `remarks` of the points calls: unique per order and per refund, so the point history
 * proves whether an operation ran. The version prefix keeps room for a future format.
 */
const part = encodeURIComponent;

export const purchaseMarker = (source: string, orderId: string) => `lp1:${part(source)}:order:${part(orderId)}`;

export const refundMarker = (source: string, orderId: string, refundId: string) =>
  `lp1:${part(source)}:refund:${part(orderId)}:${part(refundId)}`;
