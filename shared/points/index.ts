export { CustomerRef, Delivery, PurchaseEvent, RefundEvent, PointsEvent } from './events.js';
