/**
 * Shopify's cost-based leaky bucket: it holds up to `maximumAvailable` points, refills at
 * `restoreRate` per second, and a query whose requested cost is above what it holds is THROTTLED.
 */

export interface BucketSettings {
  maximumAvailable: number;
  restoreRate: number;
}

export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

export interface Bucket {
  /** Adds what has leaked back in since the last refill. */
  refill(): void;
  /** Whether `cost` points are available now (after a refill). */
  holds(cost: number): boolean;
  spend(cost: number): void;
  status(): ThrottleStatus;
  set(settings: Partial<BucketSettings> & { currentlyAvailable?: number }): void;
}

const DEFAULT_BUCKET: BucketSettings = { maximumAvailable: 2000, restoreRate: 100 };

export function createBucket(initial: Partial<BucketSettings> | undefined, now: () => number): Bucket {
  const settings: BucketSettings = { ...DEFAULT_BUCKET, ...initial };
  let available = settings.maximumAvailable;
  let refilledAt = now();
  const refill = () => {
    const t = now();
    available = Math.min(settings.maximumAvailable, available + ((t - refilledAt) / 1000) * settings.restoreRate);
    refilledAt = t;
  };
  return {
    refill,
    holds: (cost) => available >= cost,
    spend: (cost) => {
      available -= cost;
    },
    status: () => ({
      maximumAvailable: settings.maximumAvailable,
      currentlyAvailable: Math.floor(available),
      restoreRate: settings.restoreRate,
    }),
    set(s) {
      refill();
      if (s.maximumAvailable !== undefined) settings.maximumAvailable = s.maximumAvailable;
      if (s.restoreRate !== undefined) settings.restoreRate = s.restoreRate;
      available = Math.min(settings.maximumAvailable, s.currentlyAvailable ?? available);
    },
  };
}
