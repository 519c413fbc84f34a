import type { ForkedFrom } from '@agentlane/client';
import type { ForkSegment } from '../use-fork-history';
import { threadHref } from '../use-route';
import { UserText } from './user-text';

/** Where in its turn a checkpoint was taken, by its stage (the built-in engine's stages). */
const STAGE_POINT: Record<ForkedFrom['stageId'], string> = {
  'anchor-plan': 'after its plan',
  'tool-loop': 'after its tool calls',
  synthesize: 'after its answer',
  'post-turn': 'at its end',
};

/** "turn 2, after its tool calls": the origin's turn the cut falls in (the last one its rows show). */
export function forkPoint(segment: ForkSegment): string {
  const turns = segment.view?.items.filter((i) => i.type === 'turn').length ?? 0;
  return turns === 0 ? 'its start' : `turn ${turns}, ${STAGE_POINT[segment.fork.stageId]}`;
}

function note(segment: ForkSegment): string {
  if (segment.error) return `Its rows could not be read: ${segment.error}`;
  if (segment.loading) return 'Reading its rows up to that point…';
  return 'Above: its rows up to that point, read-only. Below: what was done after the fork.';
}

/** The fork point between an origin's rows (a forked thread's history) and what continues from it. */
export function ForkMarker({ segment }: { segment: ForkSegment }) {
  const { fork } = segment;
  return (
    <section className="fork-marker" aria-label="Fork point" data-fork-origin={fork.threadId}>
      <p>
        <span aria-hidden="true">↳ </span>Forked from{' '}
        <a className="fork-origin" href={threadHref(fork.threadId)}>
          <UserText text={segment.title} />
        </a>{' '}
        at {segment.loading ? '…' : forkPoint(segment)}{' '}
        <time className="muted" dateTime={fork.at}>
          ({new Date(fork.at).toLocaleString()})
        </time>
      </p>
      <p className="muted">{note(segment)}</p>
    </section>
  );
}
