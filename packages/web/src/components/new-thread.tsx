import { type FormEvent, useEffect, useState } from 'react';
import { client } from '../api';
import { threadHref } from '../use-route';

/** Start a thread: pick one of the engines the server is configured with, and a work folder. */
export function NewThread() {
  const [engines, setEngines] = useState<string[]>([]);
  const [engine, setEngine] = useState('');
  const [workDir, setWorkDir] = useState('');
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    client
      .health()
      .then((health) => {
        const names = (health.engines ?? []).map((e) => e.name);
        setEngines(names);
        if (names[0]) setEngine((current) => current || names[0]!);
      })
      .catch(() => {});
  }, []);

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
      window.location.hash = threadHref(session.id);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="new-thread" onSubmit={submit} aria-label="Start a thread">
      <label>
        Engine
        <input
          list="engine-list"
          value={engine}
          required
          onChange={(e) => setEngine(e.target.value)}
          placeholder="engine name"
        />
        <datalist id="engine-list">
          {engines.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
      </label>
      <label>
        Work folder
        <input value={workDir} onChange={(e) => setWorkDir(e.target.value)} placeholder="/path/to/project" />
      </label>
      <label>
        Title
        <input value={title} onChange={(e) => setTitle(e.target.value)} placeholder="optional" />
      </label>
      <button type="submit" disabled={busy || !engine}>
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
