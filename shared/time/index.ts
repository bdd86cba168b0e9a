/** One day in milliseconds: retention, windows and look-backs are counted in days everywhere. */
export const DAY_MS = 86_400_000;

export { formatJst, type Instant, JAPAN_TIME_ZONE, jstDay, jstIfInstant } from './jst.js';
