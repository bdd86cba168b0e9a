/** The whole emulator state: clock, clients with their customers, access tokens, faults, late commits, stats. Reset replaces it all. */
import { randomBytes } from 'node:crypto';
import { createClock, parseDateTime, type Clock } from './clock.js';
import type { EmulatorConfig } from './config.js';
import { ApiError, ConfigError } from './errors.js';
import { FaultRegistry } from './faults.js';
import { LateCommits } from './late-commits.js';
import { registerMember } from './members.js';
import type { AccessToken, ClientState } from './model.js';
import { StatsRecorder } from './stats.js';

export const TOKEN_LIFETIME_SECONDS = 86_400;

export class EmulatorState {
  clock!: Clock;
  clients = new Map<string, ClientState>();
  tokens = new Map<string, AccessToken>();
  faults = new FaultRegistry();
  /** Operations late_commit faults received and will run; see LateCommits. */
  lateCommits = new LateCommits();
  stats = new StatsRecorder();

  constructor(readonly initialConfig: EmulatorConfig) {
    this.reset(initialConfig);
  }

  /** Replaces every piece of state with a fresh one built from `config`. Throws ConfigError on a bad seed customer. */
  reset(config: EmulatorConfig): void {
    const clock = createClock(config.now === undefined ? undefined : parseDateTime(config.now, 'second'));
    const clients = new Map<string, ClientState>();
    for (const { members, ...settings } of config.clients) {
      const client: ClientState = {
        config: structuredClone(settings),
        members: new Map(),
        byUniqueId: new Map(),
        byLoginId: new Map(),
        byExternal: new Map(),
        handoverTokens: new Map(),
        nextNumber: 1,
      };
      for (const [i, seed] of members.entries()) {
        const { id, ...params } = seed;
        try {
          registerMember(client, params, clock.now(), { id });
        } catch (e) {
          if (e instanceof ApiError) {
            throw new ConfigError(`client ${settings.client_id} members[${i}]: ${JSON.stringify(e.body.errors)}`);
          }
          throw e;
        }
      }
      clients.set(settings.client_id, client);
    }
    this.clock = clock;
    this.clients = clients;
    this.tokens = new Map();
    this.faults = new FaultRegistry();
    // A request of the previous state must not land in the new one.
    this.lateCommits.cancelAll();
    this.lateCommits = new LateCommits();
    this.stats = new StatsRecorder();
  }

  issueToken(clientId: string): { token: string; expiresIn: number } {
    const token = randomBytes(32).toString('base64url');
    this.tokens.set(token, { clientId, expiresAt: this.clock.now() + TOKEN_LIFETIME_SECONDS * 1000 });
    return { token, expiresIn: TOKEN_LIFETIME_SECONDS };
  }
}
