export { type BucketSettings, type ShopifyAdminStandIn, type ShopifyAdminStandInOptions, startShopifyAdminStandIn } from './server.js';
export { createShopStore, type ShopStore, StoreInputError } from './store.js';
export { recordAcceptedDelivery } from './seed.js';
