import type { CapabilityFlag } from '@agentlane/contract';

/**
 * One configured ACP engine: how to start it and what to give it. Engine-specific knowledge (which
 * variables, which config files) lives here and in presets.ts, never above the adapter.
 */
export interface AcpEngineConfig {
  /** The name the engine is configured under (threads name it), e.g. "claude". */
  name: string;
  label?: string;
  /** Provider id on events; defaults to "acp". */
  provider?: string;
  /** The agent command (spoken to over stdio) and its arguments. */
  command: string;
  args?: string[];
  /**
   * Extra environment (base URLs, dummy keys, telemetry switches). `{{HOME}}` and `{{WORKDIR}}` are replaced.
   * The engine never inherits agentlane's own environment beyond PATH and locale (see sandboxEnv).
   */
  env?: Record<string, string>;
  /** Files written into the engine's HOME before it starts (relative path → content, same substitutions). */
  homeFiles?: Record<string, string>;
  /**
   * `loopback` (the default): outbound HTTP(S) goes to a deny-all proxy, only loopback is reachable (a local
   * model server). `open`: the engine reaches its provider's public endpoint directly.
   */
  network?: 'loopback' | 'open';
  /** Where per-thread engine HOMEs live (kept across restarts so load/resume finds the engine's own state). */
  homeRoot?: string;
  /** Flags the engine was observed to produce (see translate/capabilities.ts): reasoning, plans, commands, usage, fileDiffs. */
  observed?: Partial<Record<CapabilityFlag, boolean>>;
  /**
   * The most permission requests of one session that wait for the user at once (default 64, see
   * request-ledger.ts); the agent's next one is answered cancelled without asking, with a warning.
   */
  maxPendingPermissions?: number;
  /** ms to wait for initialize and the session response (default 60 s). */
  startTimeoutMs?: number;
  /** Receives the engine's stderr, for debugging. */
  onStderr?(chunk: string): void;
}

export function substitute(value: string, vars: { HOME: string; WORKDIR: string }): string {
  return value.replace(/\{\{(HOME|WORKDIR)\}\}/g, (_, name: 'HOME' | 'WORKDIR') => vars[name]);
}
