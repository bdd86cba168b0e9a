/** What every local HTTP server (stand-ins, emulator, console) refuses on its admin routes, and why. */
export { type AdminRefusal, type AdminRequest, adminRefusal, declaresBody } from './admin-guard.js';
export { NO_FRAMING_HEADERS } from './no-framing.js';
