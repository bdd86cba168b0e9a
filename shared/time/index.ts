/** One day in milliseconds: retention, windows and look-backs are counted in days everywhere. */
export const DAY_MS = 86_400_000;
