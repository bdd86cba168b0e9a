/** The model's agenda: callbacks by simulated time, in time order, first scheduled first among equals. */
interface Entry {
  at: number;
  seq: number;
  run: () => void;
}

export class Agenda {
  private readonly heap: Entry[] = [];
  private seq = 0;
  now = 0;

  at(time: number, run: () => void): void {
    const entry = { at: Math.max(time, this.now), seq: this.seq++, run };
    const h = this.heap;
    h.push(entry);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(h[i] as Entry, h[parent] as Entry)) break;
      [h[i], h[parent]] = [h[parent] as Entry, h[i] as Entry];
      i = parent;
    }
  }

  after(ms: number, run: () => void): void {
    this.at(this.now + ms, run);
  }

  /** Runs every entry due up to `until`; returns false when the agenda ran dry before. */
  runUntil(until: number): boolean {
    const h = this.heap;
    while (h.length > 0 && (h[0] as Entry).at <= until) {
      const top = h[0] as Entry;
      const last = h.pop() as Entry;
      if (h.length > 0) {
        h[0] = last;
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          const r = l + 1;
          let m = i;
          if (l < h.length && before(h[l] as Entry, h[m] as Entry)) m = l;
          if (r < h.length && before(h[r] as Entry, h[m] as Entry)) m = r;
          if (m === i) break;
          [h[i], h[m]] = [h[m] as Entry, h[i] as Entry];
          i = m;
        }
      }
      this.now = top.at;
      top.run();
    }
    return h.length > 0;
  }
}

function before(a: Entry, b: Entry): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
