import type { StoredRow } from '@agentlane/client';
import { type ReactNode, useMemo, useState } from 'react';
import { client } from '../api';
import { CopyButton } from '../components/copy-button';
import { type MatchedBy, matchFrames, type NativeFrame } from './frames-match';
import { useFrames } from './use-frames';

const MATCH_TEXT: Record<MatchedBy, string> = {
  identity: 'Frames naming the native ids of this event’s identity',
  'payload ids': 'This event carries no native ids; frames naming the ids in its payload',
  time: 'No frame names this event’s ids; the last frame received before it was written',
  none: 'No frame of this run matches this event',
};

/** Frames rendered at once: a long run's thousands of frames would cost a long layout. */
const MAX_SHOWN = 500;

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** A bounded, scrollable block of text: focusable, so a keyboard can scroll it. */
function ScrollPre({
  className,
  testId,
  children,
}: {
  className: string;
  testId?: string;
  children: ReactNode;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <pre className={className} tabIndex={0} data-testid={testId}>
      {children}
    </pre>
  );
}

function FrameCard({ frame }: { frame: NativeFrame }) {
  const raw = frame.raw;
  const json = pretty(frame.frame);
  return (
    <article
      className="native-frame"
      data-native-seq={frame.nativeSeq}
      aria-label={`Native frame ${frame.nativeSeq}`}
    >
      <header className="muted">
        #{frame.nativeSeq} · {frame.receivedAt}
        {raw ? ` · raw ${raw.storage}, ${raw.bytes} bytes` : ' · no raw sidecar'}
      </header>
      <h5>
        Frame <CopyButton text={json} label={`Copy frame ${frame.nativeSeq}`} />
      </h5>
      <ScrollPre className="frame-json">{json}</ScrollPre>
      {raw && (
        <>
          <h5>
            Raw{' '}
            {raw.text !== undefined && (
              <CopyButton text={raw.text} label={`Copy raw frame ${frame.nativeSeq}`} />
            )}
          </h5>
          {raw.text !== undefined ? (
            <ScrollPre className="frame-raw" testId="raw-text">
              {raw.text}
            </ScrollPre>
          ) : raw.base64 !== undefined ? (
            <ScrollPre className="frame-raw">base64: {raw.base64}</ScrollPre>
          ) : raw.artifactId ? (
            <a href={client.artifactUrl(raw.artifactId)} target="_blank" rel="noreferrer">
              Raw bytes (artifact {raw.artifactId})
            </a>
          ) : (
            <p className="muted">Omitted: the run’s raw budget was spent (sha256 {raw.sha256}).</p>
          )}
        </>
      )}
    </article>
  );
}

/**
 * For one event of the thread: its envelope (kind, ids, identity) and the native frames it came from,
 * with their raw sidecar, read from `GET /sessions/:id/runs/:runId/frames`. An item built from several
 * events (a streamed message) lists them; the user picks one. Every frame of the run is one click away.
 */
export function FramesInspector({
  threadId,
  target,
  version,
}: {
  threadId: string;
  target: { label: string; rows: StoredRow[] } | undefined;
  version: string;
}) {
  const [picked, setPicked] = useState<string | undefined>();
  const [showAll, setShowAll] = useState(false);
  const rows = target?.rows ?? [];
  const row = rows.find((r) => r.eventId === picked) ?? rows[0];
  const feed = useFrames(threadId, row?.event.runId, version);
  const match = useMemo(() => (row ? matchFrames(row, feed.frames) : undefined), [row, feed.frames]);

  if (!target || !row)
    return (
      <section className="frames-inspector" aria-label="Raw frames">
        <p className="muted">
          Choose “Inspect” on a row of the thread to see the native frames it came from.
        </p>
      </section>
    );
  const shown = showAll ? feed.frames : (match?.frames ?? []);
  return (
    <section className="frames-inspector" aria-label="Raw frames">
      <p>
        <strong>{target.label}</strong>
      </p>
      {rows.length > 1 && (
        <label>
          Event{' '}
          <select value={row.eventId} onChange={(e) => setPicked(e.target.value)}>
            {rows.map((r) => (
              <option key={r.eventId} value={r.eventId}>
                {r.event.kind} · seq {r.event.seq}
              </option>
            ))}
          </select>
        </label>
      )}
      <dl className="event-envelope" data-testid="event-envelope">
        <dt>Kind</dt>
        <dd className="mono">{row.event.kind}</dd>
        <dt>Event</dt>
        <dd className="mono">
          {row.eventId} (revision {row.revision}, seq {row.event.seq}, delivery {row.deliverySeq})
        </dd>
        <dt>Run</dt>
        <dd className="mono">{row.event.runId}</dd>
        <dt>Written</dt>
        <dd className="mono">{row.event.ts}</dd>
        <dt>Identity</dt>
        <dd>
          <ScrollPre className="frame-json" testId="event-identity">
            {pretty(row.event.identity)}
          </ScrollPre>
        </dd>
      </dl>
      <div className="inspector-tools">
        <p className="muted" aria-live="polite" data-testid="frames-match" data-matched-by={match?.by}>
          {feed.loading
            ? 'Loading frames…'
            : showAll
              ? `All ${feed.frames.length} frames of the run`
              : `${match ? MATCH_TEXT[match.by] : ''}${match?.ids.length ? ` (${match.ids.join(', ')})` : ''}: ${shown.length} of ${feed.frames.length}`}
        </p>
        <label>
          <input type="checkbox" checked={showAll} onChange={(e) => setShowAll(e.target.checked)} /> Every
          frame of the run
        </label>
      </div>
      {feed.error && (
        <p className="error" role="alert">
          {feed.error}
        </p>
      )}
      <div className="frame-list">
        {shown.slice(0, MAX_SHOWN).map((f) => (
          <FrameCard key={f.nativeSeq} frame={f} />
        ))}
      </div>
      {shown.length > MAX_SHOWN && (
        <p className="muted">
          The first {MAX_SHOWN} of {shown.length} frames; the route pages through all of them (
          <code>?after=</code>).
        </p>
      )}
    </section>
  );
}
