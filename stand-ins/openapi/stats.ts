/** Request statistics per client (GET /__emulator/stats, stand-ins/openapi/README.md): per route total and busiest clock minute. */

interface RouteStats {
  total: number;
  maxPerMinute: number;
  /** Count per clock minute (ms / 60000): the clock may be moved back into a minute already counted. */
  perMinute: Map<number, number>;
}

interface ClientStats {
  routes: Map<string, RouteStats>;
  tokenRequests: number;
  missingUserAgent: number;
}

export class StatsRecorder {
  private clients = new Map<string, ClientStats>();

  /** One request of `clientId` to `routeKey` ("METHOD /api/ext/template", e.g. "GET /api/ext/users/{id}") at emulator time `now`. */
  record(clientId: string, routeKey: string, now: number, hasUserAgent: boolean, isTokenRequest: boolean): void {
    const c = this.client(clientId);
    if (isTokenRequest) c.tokenRequests += 1;
    if (!hasUserAgent) c.missingUserAgent += 1;
    let r = c.routes.get(routeKey);
    if (!r) {
      r = { total: 0, maxPerMinute: 0, perMinute: new Map() };
      c.routes.set(routeKey, r);
    }
    // Minutes of the emulator's clock (Y-m-d H:i).
    const minute = Math.floor(now / 60_000);
    const inMinute = (r.perMinute.get(minute) ?? 0) + 1;
    r.perMinute.set(minute, inMinute);
    r.total += 1;
    if (inMinute > r.maxPerMinute) r.maxPerMinute = inMinute;
  }

  /** A request that reached no endpoint (404/405): it only shows in `missing_user_agent`. */
  recordMissingUserAgent(clientId: string): void {
    this.client(clientId).missingUserAgent += 1;
  }

  private client(clientId: string): ClientStats {
    let c = this.clients.get(clientId);
    if (!c) {
      c = { routes: new Map(), tokenRequests: 0, missingUserAgent: 0 };
      this.clients.set(clientId, c);
    }
    return c;
  }

  snapshot(): { clients: Record<string, unknown> } {
    // Object.fromEntries keeps a client named __proto__ as an own key.
    const clients = Object.fromEntries(
      [...this.clients].map(([id, c]) => {
        const routes = Object.fromEntries([...c.routes].map(([key, r]) => [key, { total: r.total, max_per_minute: r.maxPerMinute }]));
        return [id, { routes, token_requests: c.tokenRequests, missing_user_agent: c.missingUserAgent }];
      }),
    );
    return { clients };
  }
}
