import { useState } from 'react';
import { AuditInspector } from './audit-inspector';
import { CheckpointsInspector } from './checkpoints-inspector';

export type InspectorTab = 'audit' | 'checkpoints';

/**
 * The side panel of a thread: its audit ledger and its checkpoints, read from the API. `version` changes
 * when the thread's status does, so a settled run's new rows are read.
 */
export function InspectorPanel({
  threadId,
  version,
  onClose,
}: {
  threadId: string;
  version: string;
  onClose(): void;
}) {
  const [tab, setTab] = useState<InspectorTab>('audit');
  return (
    <aside className="inspector" aria-label="Inspector">
      <div className="inspector-head">
        <div role="tablist" aria-label="Inspectors">
          {(['audit', 'checkpoints'] as const).map((t) => (
            <button
              key={t}
              type="button"
              role="tab"
              id={`inspector-tab-${t}`}
              aria-selected={tab === t}
              aria-controls="inspector-tabpanel"
              onClick={() => setTab(t)}
            >
              {t === 'audit' ? 'Audit' : 'Checkpoints'}
            </button>
          ))}
        </div>
        <button type="button" onClick={onClose} aria-label="Close inspector">
          ✕
        </button>
      </div>
      <div role="tabpanel" id="inspector-tabpanel" aria-labelledby={`inspector-tab-${tab}`}>
        {tab === 'audit' ? (
          <AuditInspector threadId={threadId} version={version} />
        ) : (
          <CheckpointsInspector threadId={threadId} version={version} />
        )}
      </div>
    </aside>
  );
}
