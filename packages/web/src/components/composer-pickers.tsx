import type { TimelineView } from '@agentlane/client';

/** The engine's modes; the chosen one (or the engine's current mode) is selected. */
export function ModeSelect({
  view,
  mode,
  onChange,
}: {
  view: TimelineView;
  mode: string | undefined;
  onChange: (mode: string) => void;
}) {
  const modes = view.mode?.availableModes ?? [];
  if (!view.surfaces.modes || modes.length === 0) return null;
  return (
    <label data-surface="mode">
      Mode{' '}
      <select value={mode ?? view.mode?.currentModeId} onChange={(e) => onChange(e.target.value)}>
        {modes.map((m) => (
          <option key={m.id} value={m.id}>
            {m.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The engine's models, only when it lets the client pick one; the current model is listed even if not offered. */
export function ModelSelect({
  view,
  model,
  onChange,
}: {
  view: TimelineView;
  model: string | undefined;
  onChange: (model: string) => void;
}) {
  if (!view.surfaces.modelPicker) return null;
  const models = view.metadata.availableModels ?? [];
  const current = view.metadata.model;
  return (
    <label data-surface="model-picker">
      Model{' '}
      <select value={model ?? current?.id ?? ''} onChange={(e) => onChange(e.target.value)}>
        {current && !models.some((m) => m.id === current.id) && (
          <option value={current.id}>{current.name ?? current.id}</option>
        )}
        {models.map((m) => (
          <option key={m.id} value={m.id}>
            {m.name ?? m.id}
          </option>
        ))}
      </select>
    </label>
  );
}
