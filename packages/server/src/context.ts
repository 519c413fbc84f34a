import type { CheckpointSaver } from '@agentlane/checkpoints';
import type { EngineDriver } from '@agentlane/engine-kit';
import type { Store } from '@agentlane/store';
import type { Authenticator, Principal } from './auth.js';
import type { LanePort } from './lane-port.js';
import type { RunSlots } from './run-slots.js';
import type { FrameCache, SseConnection, SseConnectionOptions } from './sse/sse-connection.js';
import type { StreamSlots } from './stream-slots.js';
import type { ThreadHub } from './thread-hub.js';
import type { WriteHealth } from './write-health.js';

/** What the routes use of a configured engine (forkSession: POST /sessions/:id/fork {runId}). */
export type CatalogEngine = Pick<
  EngineDriver,
  'name' | 'provider' | 'label' | 'staticCapabilities' | 'forkSession'
>;

/** The configured engines, by name. */
export interface EngineCatalog {
  get(name: string): CatalogEngine | undefined;
  list(): CatalogEngine[];
}

/** What every route handler shares. */
export interface ServerContext {
  store: Store;
  lane: LanePort;
  hub: ThreadHub;
  engines: EngineCatalog;
  auth: Authenticator;
  sse: SseConnectionOptions;
  /** SSE frames of committed rows, serialized once per server. */
  frames: FrameCache;
  /** Open SSE connections, closed with a retry hint on shutdown. */
  connections: Set<SseConnection>;
  defaultWorkDir: string;
  /** Checks a requested workDir against the workspace root; returns the path to store. */
  checkWorkDir: (workDir: string, field?: string) => string;
  /** Open SSE streams per client (a token; without tokens an address and the id it names). */
  streamSlots: StreamSlots;
  /** Queued or running runs per principal. */
  runSlots: RunSlots;
  version: string;
  /** True once shutdown started: new requests get 503. */
  draining: boolean;
  /** The checkpoint saver, when the server has one: a deleted session's checkpoints go with it. */
  checkpoints?: CheckpointSaver;
  /** Whether the database takes writes (a full disk), reported by GET /health. */
  writes: WriteHealth;
  /** How long GET /health waits for the database's answer before it reports a timeout. */
  healthTimeoutMs: number;
  /** Engines found at start but not offered (their probe failed), reported by GET /health. */
  unavailableEngines?: readonly { name: string; reason: string }[];
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}
