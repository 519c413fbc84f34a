import {
  qualifiedKey,
  type StoredRow,
  shardedGet,
  shardedValues,
  type TimelineState,
} from '@agentlane/client';
import { lazy, Suspense, useMemo } from 'react';
import { AuditInspector } from './audit-inspector';
import { CheckpointsInspector } from './checkpoints-inspector';
import { FileHistory } from './file-history';
import { FramesInspector } from './frames-inspector';
import { InspectorTabs, type TabChoice } from './inspector-tabs';
import { usageData } from './usage-data';

// The charts (recharts) load with the Usage tab, not with the page.
const UsageInspector = lazy(() => import('./usage-inspector').then((m) => ({ default: m.UsageInspector })));

export type InspectorTab = 'audit' | 'usage' | 'checkpoints' | 'frames' | 'files';

const TABS: TabChoice<InspectorTab>[] = [
  { id: 'audit', label: 'Audit' },
  { id: 'usage', label: 'Usage' },
  { id: 'checkpoints', label: 'Checkpoints' },
  { id: 'frames', label: 'Raw frames' },
  { id: 'files', label: 'File history' },
];

/** What the panel shows: a tab, and for Raw frames the row inspected, for File history the path. */
export interface InspectorFocus {
  tab: InspectorTab;
  /** Item keys (in the open timeline) of the row inspected. */
  itemKeys?: string[];
  label?: string;
  path?: string;
}

/** The stored rows (latest revisions) of the timeline's items named by `keys`, in thread order. */
function rowsOfItems(state: TimelineState, namespace: string[], keys: readonly string[]): StoredRow[] {
  const rows: StoredRow[] = [];
  for (const key of keys) {
    for (const eventId of shardedGet(state.groups, qualifiedKey(namespace, key)) ?? []) {
      const row = shardedGet(state.rows, eventId);
      if (row) rows.push(row);
    }
  }
  return rows.sort((a, b) => a.order - b.order);
}

/**
 * The side panel of a thread: its audit ledger and checkpoints (read from the API), its usage and file
 * history (from the reducer's rows: the page keeps no truth of its own) and the native frames of any row
 * (from the API). `version` changes when the thread's status does, so a settled run's new rows are read.
 */
export function InspectorPanel({
  threadId,
  version,
  state,
  namespace,
  turnOrder,
  focus,
  onFocus,
  onJump,
  onClose,
}: {
  threadId: string;
  version: string;
  state: TimelineState;
  namespace: string[];
  turnOrder: readonly string[];
  focus: InspectorFocus;
  onFocus(focus: InspectorFocus): void;
  onJump(row: StoredRow): void;
  onClose(): void;
}) {
  const tab = focus.tab;
  const nsKey = namespace.join('/');
  // The timeline's own rows (a child session's view shows the child's), only while a tab needs them.
  const timelineRows = useMemo(
    () =>
      tab === 'usage' || tab === 'files'
        ? shardedValues(state.rows).filter((r) => r.namespace.join('/') === nsKey)
        : [],
    [tab, state.rows, nsKey],
  );
  const usage = useMemo(() => usageData(timelineRows, turnOrder), [timelineRows, turnOrder]);
  const target = useMemo(
    () =>
      focus.itemKeys && focus.itemKeys.length > 0
        ? {
            label: focus.label ?? focus.itemKeys.join(', '),
            rows: rowsOfItems(state, namespace, focus.itemKeys),
          }
        : undefined,
    [focus.itemKeys, focus.label, state, namespace],
  );
  return (
    <aside className="inspector" aria-label="Inspector">
      <div className="inspector-head">
        <InspectorTabs
          label="Inspectors"
          tabs={TABS}
          selected={tab}
          panelId="inspector-tabpanel"
          idOf={(id) => `inspector-tab-${id}`}
          onSelect={(id) => onFocus({ ...focus, tab: id })}
        />
        <button type="button" onClick={onClose} aria-label="Close inspector">
          ✕
        </button>
      </div>
      <div role="tabpanel" id="inspector-tabpanel" aria-labelledby={`inspector-tab-${tab}`}>
        {tab === 'audit' ? (
          <AuditInspector threadId={threadId} version={version} />
        ) : tab === 'usage' ? (
          <Suspense fallback={<p className="muted">Loading charts…</p>}>
            <UsageInspector data={usage} />
          </Suspense>
        ) : tab === 'checkpoints' ? (
          <CheckpointsInspector threadId={threadId} version={version} />
        ) : tab === 'frames' ? (
          <FramesInspector
            key={focus.itemKeys?.join('\n') ?? ''}
            threadId={threadId}
            target={target}
            version={version}
          />
        ) : (
          <FileHistory
            rows={timelineRows}
            path={focus.path}
            turnOrder={turnOrder}
            onPath={(path) => onFocus({ ...focus, path })}
            onJump={onJump}
          />
        )}
      </div>
    </aside>
  );
}
