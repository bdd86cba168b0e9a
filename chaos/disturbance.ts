/**
 * Something a chaos run does to the system besides the per-delivery faults (faults.ts): an outage of
 * the Open API, and later other kinds. The runner calls the hooks; each kind lives in its own file and
 * is added to the run's list in runner.ts.
 */
export interface Disturbance {
  readonly name: string;
  /** Before each delivery (position in the delivery order, out of `total`). */
  beforeDelivery(position: number, total: number): Promise<void>;
  /** Called often (every few ms of real time); may end the disturbance when its time is up. */
  tick(): Promise<void>;
  /** A simulated time the clock must not jump past now (the disturbance's end), if any. */
  jumpLimit(): number | undefined;
  /** A simulated time something of this disturbance falls due, which an idle clock may jump to, if any. */
  nextDueAt?(): number | undefined;
  /** While true, the run does not move the clock by other means (lease expiries). */
  holdsClock(): boolean;
  /** Once the queue has drained (before the report). */
  afterDrain(): Promise<void>;
  /** Lines for the report. */
  reportLines(): string[];
}
