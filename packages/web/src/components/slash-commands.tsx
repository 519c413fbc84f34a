import type { TimelineView } from '@agentlane/client';
import { type KeyboardEvent, useState } from 'react';

type Command = TimelineView['commands'][number];

/**
 * The slash-command completion of a prompt: while it is `/word` (no space yet) and the engine has commands,
 * up to 8 commands starting with the word, one highlighted; picking one writes `/name ` into the prompt.
 */
export function useSlashCommands(prompt: string, view: TimelineView, setPrompt: (prompt: string) => void) {
  const [highlight, setHighlight] = useState(0);
  const slash = prompt.startsWith('/') && !prompt.includes(' ') ? prompt.slice(1).toLowerCase() : undefined;
  const matches =
    slash !== undefined && view.surfaces.commands
      ? view.commands.filter((c) => c.name.toLowerCase().startsWith(slash)).slice(0, 8)
      : [];

  const complete = (name: string) => {
    setPrompt(`/${name} `);
    setHighlight(0);
  };

  /** Arrow keys move the highlight, Tab or Enter takes it; true when the key was used for that. */
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (matches.length === 0) return false;
    if (e.key === 'ArrowDown') setHighlight((highlight + 1) % matches.length);
    else if (e.key === 'ArrowUp') setHighlight((highlight - 1 + matches.length) % matches.length);
    else if (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey))
      complete(matches[highlight]?.name ?? matches[0]!.name);
    else return false;
    e.preventDefault();
    return true;
  };

  /** The prompt was edited: the highlight starts over at the first match. */
  const restart = () => setHighlight(0);

  return { matches, highlight, complete, onKey, restart };
}

/** The matching commands above the prompt; a click (on mouse down, before the prompt loses focus) takes one. */
export function SlashCommandList({
  matches,
  highlight,
  onPick,
}: {
  matches: readonly Command[];
  highlight: number;
  onPick: (name: string) => void;
}) {
  return (
    <ul className="completions" id="slash-commands" aria-label="Slash commands" data-surface="commands">
      {matches.map((c, i) => (
        <li key={c.name}>
          <button
            type="button"
            tabIndex={-1}
            className={i === highlight ? 'current' : ''}
            aria-current={i === highlight}
            onMouseDown={(e) => {
              e.preventDefault();
              onPick(c.name);
            }}
          >
            <span className="mono">/{c.name}</span> <span className="muted">{c.description}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
