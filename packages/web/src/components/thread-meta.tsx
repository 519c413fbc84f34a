import type { TimelineView } from '@agentlane/client';
import { UsageSummary } from './usage-summary';

/** The thread's model, mode, usage so far, and a way to jump to one of its turns. */
export function ThreadMeta({ view, onJump }: { view: TimelineView | undefined; onJump(key: string): void }) {
  const turns = view?.items.filter((i) => i.type === 'turn') ?? [];
  return (
    <div className="thread-meta">
      {view?.metadata.model && (
        <span className="muted">Model: {view.metadata.model.name ?? view.metadata.model.id}</span>
      )}
      {view?.mode && <span className="muted">Mode: {view.mode.currentModeId}</span>}
      {view?.usage.total && <UsageSummary usage={view.usage.total} label="thread" />}
      {turns.length > 1 && (
        <label>
          Jump to turn{' '}
          <select onChange={(e) => onJump(e.target.value)} defaultValue="">
            <option value="" disabled>
              choose…
            </option>
            {turns.map((t, i) => (
              <option key={t.key} value={t.key}>
                {i + 1}. {t.type === 'turn' ? (t.prompt ?? '').slice(0, 60) : ''}
              </option>
            ))}
          </select>
        </label>
      )}
    </div>
  );
}
