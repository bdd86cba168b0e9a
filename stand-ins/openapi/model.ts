/** The emulator's in-memory records. Everything lives in Maps keyed for the lookups the Open API needs. */
import type { ClientConfig } from './config.js';

/** Points that expire together. Lots with one expiry are interchangeable (nothing in the API tells them apart), so they are kept summed. */
export interface ExpiryBucket {
  expiresAt: number;
  remaining: number;
}

export interface PointRecord {
  id: string;
  point: number;
  title: string;
  detail: null;
  remarks: string | null;
  expired_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A history item and when it was committed in real time (elapsedMs), which the history lag reads; only `record` is ever shown. */
export interface HistoryEntry {
  record: PointRecord;
  committedAt: number;
}

export interface Member {
  /** Registration order: the customer list's fixed ordering. */
  seq: number;
  id: string;
  unique_id: string | null;
  pin: string | null;
  login_id: string | null;
  password: string | null;
  rank: string;
  /** columnNN -> value; a missing key reads as null. */
  columns: Map<string, string>;
  secret_question: string | null;
  secret_answer: string | null;
  total_point: number;
  total_point_count: number;
  logined: 0 | 1;
  enabled: 0 | 1;
  memo: string | null;
  ud_id: string | null;
  point_geted_at: string | null;
  /** `Y-m-d` of the first (oldest) point use. */
  point_used_at: string | null;
  logined_at: string | null;
  created_at: string;
  updated_at: string;
  external_ids: Map<string, string>;
  device_change: boolean;
  /** Expiring points, ascending by expiry; emptied buckets are dropped. */
  buckets: ExpiryBucket[];
  /** Points without expiry. */
  unlimited: number;
  /** Oldest first (so also by committedAt); read newest first. */
  history: HistoryEntry[];
}

export interface HandoverToken {
  memberId: string;
  expiresAt: number;
  used: boolean;
}

export type ClientSettingsState = Omit<ClientConfig, 'members'>;

export interface ClientState {
  config: ClientSettingsState;
  members: Map<string, Member>;
  byUniqueId: Map<string, Member>;
  byLoginId: Map<string, Member>;
  /** external key -> external id -> member */
  byExternal: Map<string, Map<string, Member>>;
  handoverTokens: Map<string, HandoverToken>;
  /** Counter behind auto-numbered unique_ids and designated-numbering pins. */
  nextNumber: number;
}

export interface AccessToken {
  clientId: string;
  expiresAt: number;
}
