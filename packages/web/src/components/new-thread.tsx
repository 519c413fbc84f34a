import type { SessionRecord } from '@agentlane/client';
import { type FormEvent, useEffect, useState } from 'react';
import { client } from '../api';
import { useLiveThread } from '../live-thread';
import { type EngineInfo, type UnavailableEngine, useEngines } from '../use-engines';
import { threadHref } from '../use-route';

/** Flags an engine's latest session negotiated (or reported statically), by engine name. */
function capabilitiesByEngine(sessions: SessionRecord[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const s of sessions) {
    if (out.has(s.engine)) continue;
    const flags = Object.entries(s.capabilities)
      .filter(([, on]) => on)
      .map(([flag]) => flag);
    if (flags.length > 0) out.set(s.engine, flags);
  }
  return out;
}

/** An engine's static manifest (from /health), for an engine no session has negotiated with yet. */
function staticFlags(capabilities: Record<string, boolean> | undefined): string[] {
  return Object.entries(capabilities ?? {}).flatMap(([flag, on]) => (on ? [flag] : []));
}

function recentFolders(sessions: SessionRecord[]): string[] {
  return [...new Set(sessions.flatMap((s) => (s.workDir ? [s.workDir] : [])))].slice(0, 6);
}

/** Start a thread: one of the engines the server is configured with, and a work folder. */
export function NewThread() {
  const { engines, unavailable, error: enginesError } = useEngines();
  const { refresh } = useLiveThread();
  const [sessions, setSessions] = useState<SessionRecord[]>([]);
  const [engine, setEngine] = useState('');
  const [workDir, setWorkDir] = useState('');
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    client
      .listSessions({ limit: 100 })
      .then((page) => setSessions(page.sessions))
      .catch(() => {});
  }, []);
  useEffect(() => {
    if (engines?.[0]) setEngine((current) => current || engines[0]!.name);
  }, [engines]);

  const caps = capabilitiesByEngine(sessions);
  const folders = recentFolders(sessions);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const session = await client.createSession({
        engine,
        ...(workDir ? { workDir } : {}),
        ...(title ? { title } : {}),
      });
      refresh();
      window.location.hash = threadHref(session.id);
    } catch (err) {
      setError(`Cannot start ${engine}: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="new-thread" onSubmit={submit} aria-label="Start a thread">
      <EngineChoice
        engines={engines}
        unavailable={unavailable}
        error={enginesError}
        caps={caps}
        engine={engine}
        onChange={setEngine}
      />
      <label>
        Work folder
        <input
          value={workDir}
          list="recent-folders"
          onChange={(e) => setWorkDir(e.target.value)}
          placeholder="/path/to/project"
        />
        <datalist id="recent-folders">
          {folders.map((f) => (
            <option key={f} value={f} />
          ))}
        </datalist>
      </label>
      {folders.length > 0 && (
        <fieldset className="recent-folders">
          <legend className="sr-only">Recent work folders</legend>
          {folders.map((f) => (
            <button key={f} type="button" className="chip mono" onClick={() => setWorkDir(f)}>
              {f}
            </button>
          ))}
        </fieldset>
      )}
      <label>
        Title
        <input value={title} onChange={(e) => setTitle(e.target.value)} placeholder="optional" />
      </label>
      <button type="submit" className="primary" disabled={busy || !engine}>
        Start thread
      </button>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

/** The engines to pick from: each with its label and capabilities, and those that cannot start, with why. */
function EngineChoice(props: {
  engines: EngineInfo[] | undefined;
  unavailable: UnavailableEngine[];
  error: string | undefined;
  caps: Map<string, string[]>;
  engine: string;
  onChange: (name: string) => void;
}) {
  const { engines, unavailable, error: enginesError, caps, engine } = props;
  return (
    <fieldset className="engine-choice">
      <legend>Engine</legend>
      {engines === undefined && !enginesError && <p className="muted">Loading engines…</p>}
      {enginesError && (
        <p className="error" role="alert">
          Cannot read the engines: {enginesError}
        </p>
      )}
      {engines?.length === 0 && <p className="error">This server has no engine configured.</p>}
      {engines?.map((e) => (
        <label key={e.name} className="engine-option" data-engine={e.name}>
          <input
            type="radio"
            name="engine"
            value={e.name}
            checked={engine === e.name}
            onChange={() => props.onChange(e.name)}
          />
          <span>
            <strong>{e.label}</strong> <span className="muted mono">{e.name}</span>
            <span className="capabilities">
              {(caps.get(e.name) ?? staticFlags(e.capabilities)).map((flag) => (
                <span key={flag} className="chip">
                  {flag}
                </span>
              ))}
              {!caps.has(e.name) && !e.capabilities && (
                <span className="muted">capabilities known after its first run</span>
              )}
            </span>
          </span>
        </label>
      ))}
      {unavailable.map((e) => (
        <p key={e.name} className="engine-unavailable" data-engine={e.name}>
          <strong>{e.name}</strong> <span className="error">cannot start: {e.reason}</span>
        </p>
      ))}
    </fieldset>
  );
}
