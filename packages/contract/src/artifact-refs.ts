import type { CanonicalEventKind } from './events.js';

/**
 * Where the contract puts an ArtifactRef, by event kind: the only places an event refers to an artifact.
 * An id anywhere else (a tool's input, a model's text) is content, not a reference: a server that granted
 * access to an artifact because its id appeared in such a place would let a model (asked to add an argument
 * `"id": "sha256-…"`) open another thread's artifact.
 */
export const ARTIFACT_REF_PATHS = {
  'artifact.created': [['payload', 'artifact', 'id']],
  'artifact.delivered': [['payload', 'artifact', 'id']],
  'tool.completed': [['payload', 'outputArtifact', 'artifact', 'id']],
  'file.changed': [['payload', 'diff', 'artifact', 'id']],
  'approval.requested': [['payload', 'diff', 'artifact', 'id']],
} as const satisfies Partial<Record<CanonicalEventKind, readonly (readonly string[])[]>>;

/** The artifact ids an event (or an event draft: `kind` and `payload`) refers to, each with its JSON path. */
export function artifactRefsOf(event: { kind?: unknown; payload?: unknown }): { path: string; id: string }[] {
  const paths = (ARTIFACT_REF_PATHS as Record<string, readonly (readonly string[])[]>)[String(event.kind)];
  if (!paths) return [];
  const refs: { path: string; id: string }[] = [];
  for (const path of paths) {
    let at: unknown = event;
    for (const key of path)
      at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
    if (typeof at === 'string') refs.push({ path: path.join('.'), id: at });
  }
  return refs;
}
