import { buildCommands, buildMetadata, buildMode, buildSession, buildUsage } from './build-asides.js';
import {
  buildApproval,
  buildChild,
  buildMessage,
  buildPlan,
  buildQuestion,
  buildReasoning,
  buildTerminal,
  buildTurn,
} from './build-items.js';
import { buildSingle, buildTool } from './build-tool.js';
import type { EntityRows, Rows } from './entity-rows.js';
import type { EntityAside, StoredRow, TimelineItem } from './types.js';

type Builder = (entity: EntityRows) => TimelineItem | EntityAside | undefined;

/** One builder per entity-key prefix (see entityKeyOf): `tool:call-1` is built by BUILDERS.tool. */
const BUILDERS: Readonly<Record<string, Builder>> = {
  session: buildSession,
  metadata: buildMetadata,
  commands: buildCommands,
  mode: buildMode,
  usage: buildUsage,
  plan: buildPlan,
  turn: buildTurn,
  message: buildMessage,
  reasoning: buildReasoning,
  tool: buildTool,
  terminal: buildTerminal,
  child: buildChild,
  approval: buildApproval,
  question: buildQuestion,
  event: buildSingle,
};

/**
 * Builds one entity from all its rows (sorted by order). Pure: the same rows give the same entity, which
 * is what makes the reducer insensitive to duplicates and to the order revisions arrive in.
 */
export function buildEntity(
  localKey: string,
  rows: Rows,
  namespace: readonly string[],
  isFinal: (row: StoredRow) => boolean,
): TimelineItem | EntityAside | undefined {
  const first = rows[0];
  if (!first) return undefined;
  const prefix = localKey.split(':', 1)[0] ?? '';
  if (!Object.hasOwn(BUILDERS, prefix)) return undefined;
  const base = {
    key: localKey,
    order: first.order,
    runId: first.event.runId,
    turnId: first.event.turnId,
    ts: first.event.ts,
    provisional: rows.some((row) => !isFinal(row)),
  };
  return BUILDERS[prefix]!({
    localKey,
    rows,
    namespace,
    first,
    lastOrder: rows[rows.length - 1]!.order,
    base,
  });
}
