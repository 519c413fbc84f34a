import { LRUCache } from 'lru-cache';
import {
  type BundledLanguage,
  bundledLanguages,
  bundledLanguagesInfo,
  createHighlighter,
  type GrammarState,
  type ThemedToken,
  type TokensResult,
} from 'shiki';
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript';
import type { CodeHighlighterPlugin, HighlightOptions, ThemeInput } from 'streamdown';

/**
 * Shiki stops a line that takes longer than its time limit and gives the rest of the line the scope it
 * had reached. Its default, 500 ms, was reached on a loaded machine by the first line a cold highlighter
 * saw: the light theme (tokenized first) painted every token after a parameter as a parameter while the
 * dark theme (tokenized second, regexes warm) was right. A limit this high only still guards against a
 * pathological line.
 */
export const TOKENIZE_TIME_LIMIT_MS = 10_000;
const CACHED_RESULTS = 500;
/** Streamed blocks whose complete lines are kept to continue from (one per block being written). */
const PREFIXES = 4;

type Highlighter = Awaited<ReturnType<typeof createHighlighter>>;
/** Streamdown declares its theme types against its own copy of Shiki's; they are the same at run time. */
type ShikiThemes = Parameters<typeof createHighlighter>[0]['themes'];
type Themes = [ThemeInput, ThemeInput];

const aliases = new Map<string, string>(
  bundledLanguagesInfo.flatMap((info) => [
    [info.id, info.id] as const,
    ...(info.aliases ?? []).map((a) => [a, info.id] as const),
  ]),
);

function themeName(theme: ThemeInput): string {
  return typeof theme === 'string' ? theme : (theme.name ?? 'custom');
}

/** Names a theme pair in cache keys: one highlighter, prefix and result set per pair. */
function pairKey(themePair: Themes): string {
  return `${themeName(themePair[0])}\n${themeName(themePair[1])}`;
}

/** Complete lines of a streamed block already tokenized, and the grammar state after them. */
interface Prefix {
  key: string;
  text: string;
  rows: ThemedToken[][];
  state: GrammarState | undefined;
}

function shift(rows: ThemedToken[][], by: number): void {
  if (by === 0) return;
  for (const row of rows) for (const token of row) token.offset += by;
}

/**
 * Streamdown's code highlighter plugin over Shiki with both themes in one pass: results are cached by
 * code, and a block that is still streaming tokenizes only its new complete lines and its last line.
 */
export function createCodeHighlighter(
  themes: Themes = ['github-light', 'github-dark'],
): CodeHighlighterPlugin {
  const results = new LRUCache<string, TokensResult>({ max: CACHED_RESULTS });
  const prefixes: Prefix[] = [];
  const highlighters = new Map<string, Promise<Highlighter>>();
  const engine = createJavaScriptRegexEngine({ forgiving: true });

  function highlighterFor(themePair: Themes, lang: string): Promise<Highlighter> {
    const key = pairKey(themePair);
    const pending =
      highlighters.get(key) ??
      createHighlighter({ themes: themePair as unknown as ShikiThemes, langs: [], engine });
    highlighters.set(key, pending);
    return pending.then(async (h) => {
      if (lang !== 'text' && !h.getLoadedLanguages().includes(lang))
        await h.loadLanguage(lang as BundledLanguage);
      return h;
    });
  }

  function takePrefix(key: string, code: string): Prefix | undefined {
    const at = prefixes.findIndex((p) => p.key === key && code.startsWith(p.text));
    return at === -1 ? undefined : prefixes.splice(at, 1)[0];
  }

  function tokenize(h: Highlighter, code: string, lang: string, themePair: Themes): TokensResult {
    const options = (state: GrammarState | undefined) => ({
      lang: lang as BundledLanguage,
      themes: { light: themeName(themePair[0]), dark: themeName(themePair[1]) },
      grammarState: state,
      tokenizeTimeLimit: TOKENIZE_TIME_LIMIT_MS,
    });
    const key = `${lang}\n${pairKey(themePair)}`;
    const prefix = takePrefix(key, code) ?? { key, text: '', rows: [], state: undefined };
    const lastLineStart = code.lastIndexOf('\n') + 1;
    if (lastLineStart > prefix.text.length) {
      const added = h.codeToTokens(code.slice(prefix.text.length, lastLineStart), options(prefix.state));
      added.tokens.pop(); // the empty line after the final newline
      shift(added.tokens, prefix.text.length);
      prefix.rows = prefix.rows.concat(added.tokens);
      prefix.state = added.grammarState;
      prefix.text = code.slice(0, lastLineStart);
    }
    prefixes.unshift(prefix);
    if (prefixes.length > PREFIXES) prefixes.pop();
    const last = h.codeToTokens(code.slice(lastLineStart), options(prefix.state));
    shift(last.tokens, lastLineStart);
    return { ...last, tokens: prefix.rows.concat(last.tokens) };
  }

  return {
    name: 'shiki',
    type: 'code-highlighter',
    supportsLanguage: (language) => aliases.has(language.trim().toLowerCase()),
    getSupportedLanguages: () => Object.keys(bundledLanguages) as BundledLanguage[],
    getThemes: () => themes,
    highlight({ code, language, themes: themePair, isIncomplete = false }: HighlightOptions, callback) {
      const lang = aliases.get(language.trim().toLowerCase()) ?? 'text';
      const key = `${lang}\n${pairKey(themePair)}\n${code}`;
      const cached = results.get(key);
      if (cached) return cached;
      highlighterFor(themePair, lang)
        .then((h) => {
          const result = results.get(key) ?? tokenize(h, code, lang, themePair);
          // A streaming block's result is replaced by the next one: not worth a cache slot.
          if (!isIncomplete) results.set(key, result);
          callback?.(result);
        })
        .catch((error: unknown) => console.error('code highlighting failed', error));
      return null;
    },
  };
}
