// Whether a store call failed because the database cannot answer now (an outage, a lock, a full disk):
// the store's callers decide to wait or answer 503 by it.
export { isDatabaseUnavailable } from '@agentlane/sql';
export * from './open-store.js';
export * from './postgres/create-postgres-store.js';
export type { ArtifactStore } from './roles/artifacts.js';
export type { EventStore } from './roles/events.js';
export type { InteractionStore } from './roles/interactions.js';
export type { OutboxStore } from './roles/outbox.js';
export type { RunStore } from './roles/runs.js';
export { neverBound, type SessionStore } from './roles/sessions.js';
export type { SignalStore } from './roles/signals.js';
export type { SourceLaneStore } from './roles/source-lane.js';
export type { SyncStore } from './roles/sync.js';
export type { ThreadStore } from './roles/threads.js';
export * from './sqlite/create-sqlite-store.js';
export type { Store, StoreLifecycle } from './store.js';
export * from './store.js';
