import { sessionStateOf } from '@agentlane/checkpoints/session-state';
import type { Checkpoint, CheckpointList, CheckpointSummary, ConversationPart } from '@agentlane/contract';
import { useEffect, useState } from 'react';
import { getJson } from '../api';
import { ForkButton } from '../components/fork-button';
import { TableHead } from './table-head';

const kib = (n: number) => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KiB`);

function partText(part: ConversationPart): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text;
    case 'tool-call':
      return `→ ${part.toolName}(${JSON.stringify(part.input)})`;
    case 'tool-result':
      return `← ${part.toolName}${part.isError ? ' (error)' : ''}: ${JSON.stringify(part.output).slice(0, 300)}`;
    default:
      return '';
  }
}

/** The SessionState a checkpoint hydrates to: its conversation, plan, version vector and every channel. */
function SessionStateView({ checkpoint }: { checkpoint: Checkpoint }) {
  const state = sessionStateOf(checkpoint);
  return (
    <div className="session-state" data-testid="session-state" data-checkpoint-id={checkpoint.id}>
      <h4>Conversation ({state.conversation.length} messages)</h4>
      <ol className="conversation">
        {state.conversation.map((m) => (
          <li key={m.id} data-role={m.role}>
            <strong>{m.role}</strong> {m.parts.map(partText).join(' ')}
          </li>
        ))}
      </ol>
      {state.plan.length > 0 && (
        <>
          <h4>Plan</h4>
          <ul>
            {state.plan.map((p, i) => (
              <li key={p.id ?? i}>
                [{p.status}] {p.content}
              </li>
            ))}
          </ul>
        </>
      )}
      <h4>Channels</h4>
      <ul className="channels">
        {Object.entries(state.channels).map(([name, ch]) => (
          <li key={name}>
            <details>
              <summary>
                <span className="mono">{name}</span> · {ch.kind} · version {ch.version}
              </summary>
              <pre className="code-block">{JSON.stringify(ch.value, null, 2)}</pre>
            </details>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The session's checkpoints per namespace (newest first, as the route lists them) with stage, size, full
 * or delta, pinned; one opened shows its SessionState and can be forked into a new thread.
 */
export function CheckpointsInspector({ threadId, version }: { threadId: string; version: string }) {
  const [list, setList] = useState<CheckpointSummary[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [open, setOpen] = useState<string | undefined>();
  const [checkpoint, setCheckpoint] = useState<Checkpoint | undefined>();
  const base = `/sessions/${encodeURIComponent(threadId)}/checkpoints`;

  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` asks for a new read
  useEffect(() => {
    const controller = new AbortController();
    getJson<CheckpointList>(`${base}?limit=200`, controller.signal)
      .then((page) => {
        setList(page.checkpoints);
        setError(undefined);
      })
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setError(e instanceof Error ? e.message : String(e));
      });
    return () => controller.abort();
  }, [base, version]);

  useEffect(() => {
    if (!open) return;
    const controller = new AbortController();
    setCheckpoint(undefined);
    getJson<Checkpoint>(`${base}/${encodeURIComponent(open)}`, controller.signal)
      .then(setCheckpoint)
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setError(e instanceof Error ? e.message : String(e));
      });
    return () => controller.abort();
  }, [base, open]);

  const namespaces = [...new Set((list ?? []).map((c) => c.namespace))];
  return (
    <section className="checkpoints-inspector" aria-label="Checkpoints">
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {list === undefined && !error && <p className="muted">Loading…</p>}
      {list?.length === 0 && <p className="muted">No checkpoints: this engine keeps its own state.</p>}
      {namespaces.map((ns) => (
        <div key={ns || 'root'}>
          <h4>{ns ? `Namespace ${ns}` : 'Root session'}</h4>
          <table className="checkpoints">
            <TableHead columns={['Created', 'Stage', 'Storage', 'Size', 'Pinned', 'State']} />
            <tbody>
              {list
                ?.filter((c) => c.namespace === ns)
                .map((c) => (
                  <tr
                    key={c.checkpointId}
                    data-checkpoint-id={c.checkpointId}
                    data-selected={open === c.checkpointId}
                  >
                    <td>
                      <time dateTime={c.createdAt}>{new Date(c.createdAt).toLocaleTimeString()}</time>
                    </td>
                    <td>{c.stageId}</td>
                    <td>{c.storage}</td>
                    <td>{kib(c.bytes)}</td>
                    <td>{c.pinned ? 'pinned' : ''}</td>
                    <td>
                      <button type="button" className="link" onClick={() => setOpen(c.checkpointId)}>
                        Open <span className="sr-only">checkpoint {c.checkpointId}</span>
                      </button>
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      ))}
      {open && (
        <div className="checkpoint-detail">
          <h4>
            Checkpoint <span className="mono">{open}</span>
          </h4>
          <ForkButton threadId={threadId} point={{ checkpointId: open }} />
          {checkpoint ? <SessionStateView checkpoint={checkpoint} /> : <p className="muted">Loading…</p>}
        </div>
      )}
    </section>
  );
}
