/** Reconciliation: find the Shopify orders and refunds of a time window the ledger never saw, and feed them back through intake. */
export { checkWindow, type ReconcileResult, reconcileShopify } from './reconcile.js';
export { recordRun, type RunSinks, summaryLine } from './run-report.js';
export { type ReconcileSources, reconcileSourcesFrom } from './settings.js';
export { runShopifyReconcile, type ShopifyRunDeps } from './shopify-run.js';
export { runSmaregiReconcile, type SmaregiRunDeps } from './smaregi-run.js';
