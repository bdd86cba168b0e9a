/**
 * Operations a `late_commit` fault received and runs later, on real-time timers (the emulator's clock may be
 * frozen; a vendor's backend finishing a request does not wait for it). Reset and close cancel the pending
 * ones so that one test's requests never land in the next; clearing the faults does not (the request was
 * received: it lands, as at a real vendor).
 */
export class LateCommits {
  private pending = new Set<NodeJS.Timeout>();

  /** Runs `commit` `afterMs` real milliseconds from now, unless cancelled first. */
  schedule(afterMs: number, commit: () => void): void {
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      commit();
    }, afterMs);
    this.pending.add(timer);
  }

  cancelAll(): void {
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
  }
}
