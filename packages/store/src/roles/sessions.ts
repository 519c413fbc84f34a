import type { JsonObject, NegotiatedCapabilities, ProviderId } from '@agentlane/contract';

/** The harness session bound to a thread: a row, not process memory. */
export interface HarnessSessionRecord {
  threadId: string;
  provider: ProviderId;
  engine: string;
  nativeSessionId: string | null;
  runtimeBinding: JsonObject;
  protocolVersion: string;
  capabilities: NegotiatedCapabilities;
  /** Increases whenever the runtime binding changes; a command with an older generation is refused. */
  generation: number;
  updatedAt: string;
}

/** The harness session bound to each thread. */
export interface SessionStore {
  getSession(threadId: string): Promise<HarnessSessionRecord | null>;
  /** Writes the binding; bumps generation when nativeSessionId or runtimeBinding changed. */
  bindSession(record: Omit<HarnessSessionRecord, 'generation' | 'updatedAt'>): Promise<HarnessSessionRecord>;
}

/** A session row no engine has bound yet (what creating a session writes when no binding is given). */
export function neverBound(s: HarnessSessionRecord): boolean {
  return s.nativeSessionId === null && s.protocolVersion === '' && Object.keys(s.runtimeBinding).length === 0;
}
