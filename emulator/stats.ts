/** Request statistics per client (contracts/emulator.md "Stats"): per route total and busiest clock minute. */

interface RouteStats {
  total: number;
  maxPerMinute: number;
  minute: number;
  inMinute: number;
}

interface ClientStats {
  routes: Map<string, RouteStats>;
  tokenRequests: number;
  missingUserAgent: number;
}

export class StatsRecorder {
  private clients = new Map<string, ClientStats>();

  /** One request of `clientId` to `routeKey` ("METHOD /spec/template") at emulator time `now`. */
  record(clientId: string, routeKey: string, now: number, hasUserAgent: boolean, isTokenRequest: boolean): void {
    let c = this.clients.get(clientId);
    if (!c) this.clients.set(clientId, (c = { routes: new Map(), tokenRequests: 0, missingUserAgent: 0 }));
    if (isTokenRequest) c.tokenRequests += 1;
    if (!hasUserAgent) c.missingUserAgent += 1;
    let r = c.routes.get(routeKey);
    if (!r) c.routes.set(routeKey, (r = { total: 0, maxPerMinute: 0, minute: -1, inMinute: 0 }));
    // Minutes of the emulator's clock (Y-m-d H:i).
    const minute = Math.floor(now / 60_000);
    if (minute !== r.minute) {
      r.minute = minute;
      r.inMinute = 0;
    }
    r.total += 1;
    r.inMinute += 1;
    if (r.inMinute > r.maxPerMinute) r.maxPerMinute = r.inMinute;
  }

  /** A request that reached no endpoint (404/405): it only shows in `missing_user_agent`. */
  recordMissingUserAgent(clientId: string): void {
    let c = this.clients.get(clientId);
    if (!c) this.clients.set(clientId, (c = { routes: new Map(), tokenRequests: 0, missingUserAgent: 0 }));
    c.missingUserAgent += 1;
  }

  snapshot(): { clients: Record<string, unknown> } {
    const clients: Record<string, unknown> = {};
    for (const [id, c] of this.clients) {
      const routes: Record<string, { total: number; max_per_minute: number }> = {};
      for (const [key, r] of c.routes) routes[key] = { total: r.total, max_per_minute: r.maxPerMinute };
      clients[id] = { routes, token_requests: c.tokenRequests, missing_user_agent: c.missingUserAgent };
    }
    return { clients };
  }
}
