/** The local Smaregi Platform API stand-in and how `npm start` wires the Smaregi source to it. */
export { startSmaregiStandIn, type SmaregiStandIn, type SmaregiStandInOptions } from './server.js';
export { MAX_LIST_DAYS } from './list.js';
export {
  type LocalSmaregi,
  type LocalSmaregiOptions,
  localSmaregiEnvironment,
  SMAREGI_LOCAL,
  startLocalSmaregi,
  tillPointsOf,
} from './local.js';
