import type { JsonObject } from '@agentlane/contract';
import { canBeLate } from '../translate/late-frames.js';
import type { WireDirection } from './connection.js';

/**
 * Which of the agent's messages arrive after its turn ended, judged as each message is recorded, in wire
 * order (translate/late-frames.ts says why such a message is late and what the translator makes of it).
 * A turn ends with the agent's response to `session/prompt`; the window closes when the next `session/prompt`
 * is recorded. Before a session's first prompt nothing is late: the session's opening (a command catalog on
 * a timer, a load's history replay) precedes every turn. Judging at record time rather than when runTurn
 * returns matters: the SDK may hand the response and the messages after it over together, and the run's
 * sink changes only once runTurn's promise has settled, so some late messages still reach the ending run.
 */
export class TurnWindow {
  /** The JSON-RPC id of the last session/prompt sent. */
  private promptId: string | number | undefined;
  /** The agent answered that prompt: its turn is over. */
  private ended = false;

  /** One JSON-RPC message as it is recorded (`id` its id, when a string or number): whether it is late. */
  late(dir: WireDirection, rpc: JsonObject | undefined, id: string | number | undefined): boolean {
    if (!rpc) return false;
    if (dir === 'client->agent') {
      if (rpc.method === 'session/prompt' && id !== undefined) {
        this.promptId = id;
        this.ended = false;
      }
      return false;
    }
    if (rpc.method === undefined) {
      // The response to the prompt ends the turn; it is the turn's own last message, not late.
      if (id !== undefined && id === this.promptId) this.ended = true;
      return false;
    }
    return this.ended && canBeLate(rpc);
  }
}
