// Which surfaces of the page a thread's events call for: the oracle the browser tests compare the page
// against. It is written from the contract (event kinds and capability flags), not from the client's
// reducer, so a reducer or component that drops or invents a surface is caught. Pure, no engine names.
import {
  CANONICAL_EVENT_KINDS,
  type CanonicalEvent,
  type CanonicalEventKind,
  type CanonicalStreamEvent,
} from '@agentlane/contract';

/** Every `data-surface` value the page renders. */
export const SURFACE_IDS = [
  'message',
  'reasoning',
  'plan',
  'tool',
  'file',
  'terminal',
  'artifact',
  'child',
  'approval',
  'question',
  'context',
  'warning',
  'error',
  'usage',
  'waiting',
  'commands',
  'mode',
  'model-picker',
] as const;
export type SurfaceId = (typeof SURFACE_IDS)[number];

/**
 * The row surface each event kind produces in the timeline it belongs to. `undefined`: the kind shows no
 * surface of its own (turn headers, session facts) or needs a look at its payload (see below).
 */
const KIND_SURFACE: Record<CanonicalEventKind, SurfaceId | undefined> = {
  'session.started': undefined,
  'session.metadata': undefined,
  'turn.started': undefined,
  'turn.completed': undefined,
  'message.started': 'message',
  'message.delta': 'message',
  'message.completed': 'message',
  'reasoning.delta': 'reasoning',
  'reasoning.completed': 'reasoning',
  'plan.updated': 'plan',
  'tool.started': 'tool',
  'tool.progress': 'tool',
  'tool.completed': 'tool',
  'file.changed': 'file',
  'artifact.created': 'artifact',
  'artifact.delivered': 'artifact',
  'terminal.output': 'terminal',
  'child.started': 'child',
  'child.updated': 'child',
  'child.completed': 'child',
  'approval.requested': 'approval',
  'approval.resolved': 'approval',
  'question.requested': 'question',
  'question.resolved': 'question',
  'commands.updated': undefined,
  'mode.updated': undefined,
  'usage.updated': 'usage',
  'context.marker': 'context',
  'harness.warning': 'warning',
  'harness.error': 'error',
};

const CANONICAL: ReadonlySet<string> = new Set<string>(CANONICAL_EVENT_KINDS);

function isCanonicalFrame(frame: unknown): frame is CanonicalStreamEvent {
  if (typeof frame !== 'object' || frame === null) return false;
  const f = frame as Partial<CanonicalStreamEvent>;
  return (
    typeof f.type === 'string' &&
    CANONICAL.has(f.type) &&
    typeof f.deliverySeq === 'number' &&
    typeof f.event === 'object' &&
    f.event !== null &&
    f.event.kind === f.type
  );
}

/** The latest revision of each eventId, in timeline order (the first deliverySeq the eventId had). */
function latestRows(frames: readonly unknown[]): { event: CanonicalEvent; namespace: string[] }[] {
  const rows = new Map<
    string,
    { order: number; revision: number; seq: number; frame: CanonicalStreamEvent }
  >();
  for (const frame of frames) {
    if (!isCanonicalFrame(frame)) continue;
    const revision = typeof frame.revision === 'number' ? frame.revision : 1;
    const known = rows.get(frame.event.eventId);
    const order = Math.min(known?.order ?? Number.POSITIVE_INFINITY, frame.deliverySeq);
    const newer =
      !known || revision > known.revision || (revision === known.revision && frame.deliverySeq > known.seq);
    if (newer) rows.set(frame.event.eventId, { order, revision, seq: frame.deliverySeq, frame });
    else known.order = order;
  }
  return [...rows.values()]
    .sort((a, b) => a.order - b.order)
    .map(({ frame }) => ({ event: frame.event, namespace: frame.namespace ?? [] }));
}

/**
 * The surfaces the root thread view must show for these StreamEvents, and no others:
 * - row surfaces from the kinds of the root timeline's events (a child session's events live in its own
 *   timeline; in the parent only its child.* card shows);
 * - `waiting` while any approval or question, sub-agents' included, has no resolution;
 * - the composer's slash `commands` when the latest commands.updated lists one, the `mode` selector when the
 *   latest mode.updated offers modes, the `model-picker` only when the session's `modelSelection` flag is on.
 */
export function expectedSurfaces(frames: readonly unknown[]): SurfaceId[] {
  const surfaces = new Set<SurfaceId>();
  const open = new Map<string, boolean>();
  let commands = 0;
  let modes = 0;
  let modelSelection = false;
  for (const { event, namespace } of latestRows(frames)) {
    const scope = namespace.join('/');
    switch (event.kind) {
      case 'approval.requested':
        if (!open.has(`${scope}#a:${event.payload.approvalId}`))
          open.set(`${scope}#a:${event.payload.approvalId}`, true);
        break;
      case 'approval.resolved':
        open.set(`${scope}#a:${event.payload.approvalId}`, false);
        break;
      case 'question.requested':
        if (!open.has(`${scope}#q:${event.payload.questionId}`))
          open.set(`${scope}#q:${event.payload.questionId}`, true);
        break;
      case 'question.resolved':
        open.set(`${scope}#q:${event.payload.questionId}`, false);
        break;
    }
    if (namespace.length > 0) continue;
    const surface = KIND_SURFACE[event.kind];
    if (surface) surfaces.add(surface);
    if (event.kind === 'commands.updated') commands = event.payload.commands.length;
    if (event.kind === 'mode.updated') modes = event.payload.availableModes?.length ?? 0;
    if (event.kind === 'session.started') modelSelection = event.payload.capabilities.modelSelection === true;
  }
  if ([...open.values()].some(Boolean)) surfaces.add('waiting');
  if (commands > 0) surfaces.add('commands');
  if (modes > 0) surfaces.add('mode');
  if (modelSelection) surfaces.add('model-picker');
  return SURFACE_IDS.filter((id) => surfaces.has(id));
}
