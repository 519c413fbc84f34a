import { type EntityRows, last, ofKind } from './entity-rows.js';
import type { EntityAside } from './types.js';
import { usageFrom } from './usage.js';

// Session facts and usage: each the latest (or the sum) of its rows, placed at its last row.

export function buildSession({ rows, lastOrder }: EntityRows): EntityAside | undefined {
  const started = last(ofKind(rows, 'session.started'));
  return started && { type: 'session', order: lastOrder, value: started.payload };
}

export function buildMetadata({ rows, lastOrder }: EntityRows): EntityAside {
  const value = Object.assign({}, ...ofKind(rows, 'session.metadata').map((e) => e.payload));
  return { type: 'metadata', order: lastOrder, value };
}

export function buildCommands({ rows, lastOrder }: EntityRows): EntityAside | undefined {
  const commands = last(ofKind(rows, 'commands.updated'));
  return commands && { type: 'commands', order: lastOrder, value: commands.payload.commands };
}

export function buildMode({ rows, lastOrder }: EntityRows): EntityAside | undefined {
  const mode = last(ofKind(rows, 'mode.updated'));
  return mode && { type: 'mode', order: lastOrder, value: mode.payload };
}

/** The session's usage is its latest report; a turn's is its latest turn-scoped report, else the sum of all. */
export function buildUsage({ localKey, rows, first, lastOrder }: EntityRows): EntityAside {
  const updates = ofKind(rows, 'usage.updated').map((e) => e.payload);
  if (localKey === 'usage:session') {
    return {
      type: 'usage',
      order: lastOrder,
      turnId: '',
      scope: 'session',
      value: usageFrom(updates.slice(-1)),
    };
  }
  const turnScoped = updates.filter((u) => u.scope === 'turn');
  const value = turnScoped.length > 0 ? usageFrom(turnScoped.slice(-1)) : usageFrom(updates);
  return { type: 'usage', order: lastOrder, turnId: first.event.turnId, scope: 'turn', value };
}
