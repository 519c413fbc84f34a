import type { ToolItem } from '@agentlane/client';
import type { JsonValue } from '@agentlane/contract';
import { useState } from 'react';
import { LoadFullButton, useArtifactText } from './artifact-body';
import { CopyButton } from './copy-button';

const OUTPUT_PREVIEW_CHARS = 2000;

function asText(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

function ToolOutput({ item }: { item: ToolItem }) {
  const artifact = useArtifactText(item.outputArtifact);
  const inline = asText(item.output);
  const text = item.outputArtifact ? artifact.text : inline;
  const bounded = text.length > OUTPUT_PREVIEW_CHARS && artifact.complete && !item.outputArtifact;
  const [all, setAll] = useState(false);
  if (!text && !item.error) return null;
  return (
    <div className="tool-output">
      {text && (
        <div className="copyable">
          <pre className="code-block">
            {bounded && !all ? `${text.slice(0, OUTPUT_PREVIEW_CHARS)}…` : text}
          </pre>
          <CopyButton text={text} label="Copy tool output" />
        </div>
      )}
      {bounded && !all && (
        <button type="button" onClick={() => setAll(true)}>
          Show all {text.length} characters
        </button>
      )}
      {item.outputArtifact && <LoadFullButton state={artifact} />}
    </div>
  );
}

/** One tool call: name, input, status, progress, a bounded output preview; details only when opened. */
export function ToolCard({ item }: { item: ToolItem }) {
  const [open, setOpen] = useState(false);
  const running = item.status === 'pending' || item.status === 'running';
  return (
    <div className={`card tool tool-${item.status}`} data-surface="tool" data-kind={item.kind}>
      <button type="button" className="card-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="tool-kind">{item.kind}</span>
        <span className="tool-name">{item.title ?? item.name}</span>
        <span className={`status status-${item.status}`}>{item.status}</span>
        {item.durationMs !== undefined && (
          <span className="muted">{(item.durationMs / 1000).toFixed(1)} s</span>
        )}
      </button>
      {running && item.message && <p className="muted">{item.message}</p>}
      {item.status === 'failed' && (
        <p className="error tool-error" data-testid="tool-error">
          {item.error ?? 'The tool failed without a message.'}
        </p>
      )}
      {running && item.partialOutput && !open && (
        <pre className="code-block">{item.partialOutput.slice(-OUTPUT_PREVIEW_CHARS)}</pre>
      )}
      {open && (
        <div className="card-body">
          <h4>Input</h4>
          <div className="copyable">
            <pre className="code-block">{asText(item.input) || '(none)'}</pre>
            {asText(item.input) && <CopyButton text={asText(item.input)} label="Copy tool input" />}
          </div>
          <h4>Output</h4>
          <ToolOutput item={item} />
        </div>
      )}
    </div>
  );
}

/** Quiet tools (reads, searches) in a row fold into one line. */
export function ToolGroup({ items }: { items: ToolItem[] }) {
  const [open, setOpen] = useState(false);
  const failed = items.filter((i) => i.status === 'failed').length;
  return (
    <div className="card tool-group" data-surface="tool">
      <button type="button" className="card-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        {items.length} quiet tool calls ({[...new Set(items.map((i) => i.kind))].join(', ')})
        {failed > 0 && <span className="status status-failed">{failed} failed</span>}
      </button>
      {open && items.map((item) => <ToolCard key={item.key} item={item} />)}
    </div>
  );
}
