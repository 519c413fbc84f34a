import type {
  ChildItem,
  FileItem,
  PlanItem,
  ReasoningItem,
  TerminalItem,
  TimelineItem,
  TurnItem,
} from '@agentlane/client';
import { memo, useState } from 'react';
import { client } from '../api';
import { messageRef } from '../message-text';
import { threadHref } from '../use-route';
import { ArtifactPreview } from './artifact-preview';
import { DiffBody } from './diff-body';
import type { DisplayRow, RowContext } from './display-rows';
import { ForkButton } from './fork-button';
import { ForkMarker } from './fork-marker';
import { MessageRow } from './message-row';
import { ApprovalCard, QuestionCard } from './request-cards';
import { TerminalBody } from './terminal-body';
import { ToolCard, ToolGroup } from './tool-card';
import { UsageSummary } from './usage-summary';
import { UserText } from './user-text';

const ITEM_LABEL: Record<TimelineItem['type'], string> = {
  turn: 'turn',
  message: 'message',
  reasoning: 'reasoning',
  tool: 'tool call',
  plan: 'plan',
  file: 'file change',
  artifact: 'artifact',
  terminal: 'terminal',
  child: 'sub-agent',
  approval: 'approval',
  question: 'question',
  context: 'context marker',
  warning: 'warning',
  error: 'error',
};

function rowLabel(item: TimelineItem): string {
  const what = ITEM_LABEL[item.type];
  switch (item.type) {
    case 'tool':
      return `${what} ${item.title ?? item.name}`;
    case 'file':
      return `${what} ${item.path}`;
    case 'message':
      return `${item.role} ${what}`;
    default:
      return what;
  }
}

/** The row's way into the inspector: the native frames its events came from. */
function InspectRowButton({ items, context }: { items: TimelineItem[]; context: RowContext }) {
  const onInspect = context.onInspect;
  if (!onInspect) return null;
  const label = items.length === 1 ? rowLabel(items[0]!) : `${items.length} tool calls`;
  return (
    <button
      type="button"
      className="row-inspect"
      aria-label={`Inspect ${label}`}
      title="Inspect: the native frames this row came from"
      onClick={() =>
        onInspect(
          items.map((i) => i.key),
          label,
        )
      }
    >
      ⋯
    </button>
  );
}

function TurnHeader({ item, context }: { item: TurnItem; context: RowContext }) {
  const folded = context.folded.has(item.turnId);
  const usage = context.turnUsage[item.turnId];
  return (
    <div className="turn" id={`turn-${item.turnId}`}>
      <button
        type="button"
        className="fold"
        aria-expanded={!folded}
        aria-label={folded ? 'Unfold turn' : 'Fold turn'}
        onClick={() => context.toggleFold(item.turnId)}
      >
        {folded ? '▸' : '▾'}
      </button>
      <div className="turn-main">
        {item.prompt && !context.turnsWithUserMessage.has(item.turnId) && (
          <div className="message user">
            <span className="role">You</span>
            <p className="prompt">{item.prompt}</p>
          </div>
        )}
        <div className="turn-meta muted">
          {item.status !== 'running'
            ? `Ended: ${item.stopReason}`
            : context.readOnly
              ? 'Forked before it ended'
              : 'Running…'}
          {item.durationMs !== undefined && ` · ${(item.durationMs / 1000).toFixed(1)} s`}
          {usage && (
            <>
              {' · '}
              <UsageSummary usage={usage} label="turn" />
            </>
          )}
          {item.status !== 'running' && !context.readOnly && (
            <>
              {' · '}
              <ForkButton
                threadId={context.threadId}
                point={{ runId: item.runId }}
                label="Fork after this turn"
                compact
              />
            </>
          )}
        </div>
      </div>
    </div>
  );
}

function ReasoningRow({ item }: { item: ReasoningItem }) {
  const live = item.status === 'streaming';
  const [open, setOpen] = useState<boolean | undefined>();
  const isOpen = open ?? live;
  const seconds = item.durationMs !== undefined ? ` for ${(item.durationMs / 1000).toFixed(1)} s` : '';
  return (
    <div className="reasoning" data-surface="reasoning">
      <button type="button" className="card-head" aria-expanded={isOpen} onClick={() => setOpen(!isOpen)}>
        {live ? 'Thinking…' : `Thought${seconds}`}
      </button>
      {isOpen && <p className="reasoning-text">{item.text}</p>}
    </div>
  );
}

function PlanRow({ item }: { item: PlanItem }) {
  return (
    <section className="card plan" data-surface="plan" aria-label="Plan">
      <h3>Plan</h3>
      <ul className="checklist">
        {item.entries.map((entry, i) => (
          <li key={entry.id ?? i} className={`plan-${entry.status}`}>
            <input
              type="checkbox"
              checked={entry.status === 'completed'}
              readOnly
              aria-label={entry.status}
            />
            <span>{entry.content}</span>
            {entry.status === 'in_progress' && <span className="status status-running">in progress</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}

function FileRow({ item, context }: { item: FileItem; context: RowContext }) {
  const [open, setOpen] = useState(false);
  const onFileHistory = context.onFileHistory;
  return (
    <div className="card file" data-surface="file">
      <div className="file-head">
        <button type="button" className="card-head" aria-expanded={open} onClick={() => setOpen(!open)}>
          <span className="status">{item.change}</span>
          <span className="mono">
            {item.previousPath ? `${item.previousPath} → ${item.path}` : item.path}
          </span>
          {item.additions !== undefined && <span className="add">+{item.additions}</span>}
          {item.deletions !== undefined && <span className="del">−{item.deletions}</span>}
        </button>
        {onFileHistory && (
          <button
            type="button"
            className="link file-history-link"
            aria-label={`Diff history of ${item.path}`}
            onClick={() => onFileHistory(item.path)}
          >
            History
          </button>
        )}
      </div>
      {open && item.diff && <DiffBody diff={item.diff} />}
    </div>
  );
}

function TerminalRow({ item }: { item: TerminalItem }) {
  const running = item.exit === undefined;
  const [open, setOpen] = useState<boolean | undefined>();
  const isOpen = open ?? false;
  const lines = item.output.split('\n').length;
  return (
    <div className="card terminal-card" data-surface="terminal">
      <button type="button" className="card-head" aria-expanded={isOpen} onClick={() => setOpen(!isOpen)}>
        <span className="mono">$ {item.command ?? item.terminalId}</span>
        <span className="muted">{lines} lines</span>
        <span
          className={`status ${running ? 'status-running' : item.exit?.code === 0 ? 'status-completed' : 'status-failed'}`}
        >
          {running ? 'running' : `exit ${item.exit?.code ?? item.exit?.signal}`}
        </span>
      </button>
      {isOpen && <TerminalBody output={item.output} />}
    </div>
  );
}

function ChildRow({ item, context }: { item: ChildItem; context: RowContext }) {
  return (
    <div className="card child" data-surface="child">
      <div className="card-head static">
        <span>
          Sub-agent: <UserText text={item.title ?? item.childSessionId} />
        </span>
        <span className={`status status-${item.state}`}>{item.state}</span>
        <a href={threadHref(context.threadId, item.timelineKey)}>Open</a>
      </div>
      {(item.summary ?? item.description) && <p className="muted">{item.summary ?? item.description}</p>}
    </div>
  );
}

/** Same row content: the same item objects (the reducer replaces an item only when it changes). */
function sameRow(a: DisplayRow, b: DisplayRow): boolean {
  if (a.kind === 'item') return b.kind === 'item' && a.item === b.item;
  if (a.kind === 'fork') return b.kind === 'fork' && a.origin === b.origin;
  if (b.kind !== 'group') return false;
  return a.items.length === b.items.length && a.items.every((item, i) => item === b.items[i]);
}

/**
 * One row of the timeline. Reads kinds and capabilities, never an engine name. Memoized: the virtual
 * list re-renders its visible items on every scroll step, and displayRows wraps items in new row objects
 * on every batch, so rows compare what they show instead.
 */
export const TimelineRow = memo(
  function TimelineRow({ row, context }: { row: DisplayRow; context: RowContext }) {
    return <RowFrame row={row} context={context} />;
  },
  (before, after) => before.context === after.context && sameRow(before.row, after.row),
);

function RowFrame({ row, context }: { row: DisplayRow; context: RowContext }) {
  if (row.kind === 'fork') return <ForkMarker segment={row.origin} />;
  if (row.kind === 'group') {
    return (
      <div className={`row${context.readOnly ? ' history' : ''}`}>
        <ToolGroup items={row.items.filter((i) => i.type === 'tool')} />
        <InspectRowButton items={row.items} context={context} />
      </div>
    );
  }
  const item = row.item;
  return (
    <div
      className={`row row-${item.type}${item.provisional ? ' provisional' : ''}${context.readOnly ? ' history' : ''}`}
      data-provisional={item.provisional}
      data-key={item.key}
      title={item.provisional ? 'Provisional until the run completes' : undefined}
    >
      <RowBody item={item} context={context} />
      <InspectRowButton items={[item]} context={context} />
    </div>
  );
}

function RowBody({ item, context }: { item: TimelineItem; context: RowContext }) {
  switch (item.type) {
    case 'turn':
      return <TurnHeader item={item} context={context} />;
    case 'message':
      return (
        <MessageRow
          item={item}
          offloaded={context.offloadedTexts?.get(messageRef(item.runId, item.messageId))}
        />
      );
    case 'reasoning':
      return <ReasoningRow item={item} />;
    case 'tool':
      return <ToolCard item={item} />;
    case 'plan':
      return <PlanRow item={item} />;
    case 'file':
      return <FileRow item={item} context={context} />;
    case 'artifact':
      return (
        <div className="card artifact" data-surface="artifact">
          <a href={client.artifactUrl(item.artifact.id)} target="_blank" rel="noreferrer">
            {item.name ?? item.artifact.id}
          </a>{' '}
          <span className="muted">
            {item.artifact.contentType} · {item.artifact.bytes} bytes{item.delivered ? ' · delivered' : ''}
          </span>
          {item.description && <p>{item.description}</p>}
          <ArtifactPreview artifact={item.artifact} name={item.name} />
        </div>
      );
    case 'terminal':
      return <TerminalRow item={item} />;
    case 'child':
      return <ChildRow item={item} context={context} />;
    case 'approval':
      return <ApprovalCard item={item} readOnly={context.readOnly} />;
    case 'question':
      return <QuestionCard item={item} readOnly={context.readOnly} />;
    case 'context':
      return (
        <p className="context-marker" data-surface="context">
          {item.phase === 'end' ? '◂' : '▸'} {item.markerKind}: {item.label}
          {item.detail && <span className="muted"> — {item.detail}</span>}
        </p>
      );
    case 'warning':
      return (
        <p className="warning" data-surface="warning">
          Warning ({item.code}): {item.message}
        </p>
      );
    case 'error':
      return (
        <div
          className={`error-row${item.fatal ? ' fatal' : ''}`}
          data-surface="error"
          role={item.fatal ? 'alert' : undefined}
        >
          <strong>{item.fatal ? 'The run ended with an error' : 'Error'}</strong> ({item.code}):{' '}
          {item.message}
        </div>
      );
    default:
      return assertNeverItem(item);
  }
}

function assertNeverItem(item: never): never {
  throw new Error(`unhandled timeline item ${(item as { type?: string }).type}`);
}
