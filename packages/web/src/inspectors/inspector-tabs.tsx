import { type KeyboardEvent, useRef } from 'react';

export interface TabChoice<T extends string> {
  id: T;
  label: string;
}

/** Where a key moves in a row of `count` tabs from `index` (wrapping at the ends); undefined for other keys. */
export function tabTarget(key: string, index: number, count: number): number | undefined {
  switch (key) {
    case 'ArrowRight':
      return (index + 1) % count;
    case 'ArrowLeft':
      return (index - 1 + count) % count;
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return undefined;
  }
}

/**
 * A tab list in the WAI-ARIA tabs pattern: one tab stop (the selected tab; roving tabindex), ArrowLeft /
 * ArrowRight (wrapping), Home and End move the focus and select the tab they reach (automatic activation:
 * every panel is cheap to show). Every tab controls the one panel, `panelId`, which shows the selected tab.
 */
export function InspectorTabs<T extends string>({
  label,
  tabs,
  selected,
  panelId,
  idOf,
  onSelect,
}: {
  label: string;
  tabs: readonly TabChoice<T>[];
  selected: T;
  panelId: string;
  idOf(tab: T): string;
  onSelect(tab: T): void;
}) {
  const list = useRef<HTMLDivElement>(null);
  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const next = tabTarget(event.key, index, tabs.length);
    if (next === undefined) return;
    event.preventDefault();
    const tab = tabs[next]!;
    onSelect(tab.id);
    list.current?.querySelector<HTMLButtonElement>(`#${CSS.escape(idOf(tab.id))}`)?.focus();
  };
  return (
    <div role="tablist" aria-label={label} aria-orientation="horizontal" ref={list}>
      {tabs.map((t, index) => (
        <button
          key={t.id}
          type="button"
          role="tab"
          id={idOf(t.id)}
          aria-selected={selected === t.id}
          aria-controls={panelId}
          tabIndex={selected === t.id ? 0 : -1}
          onClick={() => onSelect(t.id)}
          onKeyDown={(event) => onKeyDown(event, index)}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}
