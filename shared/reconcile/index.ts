export {
  checkWindow,
  type MissingEvent,
  type ReconcileDeps,
  type ReconcileOptions,
  type ReconcileProblem,
  type ReconcileResult,
  ReconcileWindowError,
  reconcileShopify,
  summaryLine,
} from './reconcile.js';
export { ReconcileSettingsError, ReconcileSources, reconcileSourcesFrom } from './settings.js';
