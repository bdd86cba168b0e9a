/**
 * The intake's light entry to the quarantine: keeping a delivery only. The intake imports it on first need
 * (a dynamic import keeps every export of what it names, so it names this file, not the module's index).
 */
export { createQuarantineKeeper } from './store.js';
