/** What the worker bench measures (bench/worker.ts), as bench/run.ts prints it. */

export interface WorkerBenchOptions {
  quick?: boolean;
  log?: (line: string) => void;
}

export interface EventCost {
  openApiCalls: number;
  dynamoWrites: number;
  dynamoReads: number;
  samples: number;
}

/** Where one purchase's time goes when events run one at a time (ms per event). */
export interface TimeSplit {
  totalMs: number;
  dynamoMs: number;
  openApiMs: number;
  restMs: number;
}

/** The worker and the floor run side by side, `concurrency` events at once, in alternating rounds. */
export interface SideBySide {
  events: number;
  concurrency: number;
  rounds: number;
  workerEventsPerSecond: number;
  floorEventsPerSecond: number;
  /** worker / floor. */
  ratio: number;
}

export interface WorkerBenchFigures {
  /** Events the handler did not acknowledge at first and that were delivered again, by outcome. */
  retries: Record<string, number>;
  /** `retriedPurchase`: purchases of which `retryShare` had a first attempt released after its lookup, then delivered again. */
  cost: { purchase: EventCost; retriedPurchase: EventCost & { retryShare: number }; firstRefund: EventCost; laterRefund: EventCost };
  /** One purchase at a time: through the worker, and the floor's bare calls. */
  split: { worker: TimeSplit; floor: TimeSplit };
  throughput: SideBySide;
  /**
   * The latency model: the Open API answers after AWS-like latency (the emulator's delay fault, one per
   * call, `openApiMs` +/- `jitterMs`) and every DynamoDB request pays a network round trip (`dynamoMs`,
   * a delay in the SDK client both sides use). Worker and floor side by side, `concurrency` at once
   * (each like one Lambda container working a record at a time).
   */
  awsLatency: SideBySide & {
    openApiMs: number;
    jitterMs: number;
    dynamoMs: number;
    /** One purchase, start to end (p50), in the model. */
    workerEventMsP50: number;
    floorEventMsP50: number;
  };
  rate: {
    backlog: number;
    budgetPerMinute: number;
    clockScale: number;
    concurrency: number;
    /** Per route: requests and the emulator's largest count in one clock minute. */
    routes: Record<string, { total: number; maxPerMinute: number }>;
    /** Calls per complete clock minute on the busiest route (lookup and calculation are equal). */
    minuteCounts: number[];
    /** Mean of the complete minutes, and as a share of the budget. */
    sustainedPerMinute: number;
    share: number;
    /** Time from an event's start to its end, on the scaled clock (limiter waits included). */
    eventSecondsP50: number;
    eventSecondsMax: number;
    realSeconds: number;
  };
}
