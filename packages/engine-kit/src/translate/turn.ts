import type { TurnStartedPayload } from '@agentlane/contract';
import type { StepBuilder } from './step.js';

/** The part of a translator's state that knows where the run's one turn is. */
export interface TurnTracked {
  turn: 'none' | 'open' | 'closed';
  turnStartedAt: string | null;
}

/**
 * Opens the run's turn (one run is one turn): turn.started under the key `turn.started`, the frame's time as
 * its start. False when the turn was opened before (a later prompt frame of the same run restates it).
 */
export function openTurnOnce<S extends TurnTracked>(
  step: StepBuilder<S>,
  payload: TurnStartedPayload,
): boolean {
  if (step.state.turn !== 'none') return false;
  step.state.turn = 'open';
  step.state.turnStartedAt = step.receivedAt;
  step.emit('turn.started', { kind: 'turn.started', payload });
  return true;
}
