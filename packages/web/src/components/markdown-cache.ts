import { LRUCache } from 'lru-cache';
import { defaultRehypePlugins, defaultRemarkPlugins, type StreamdownProps } from 'streamdown';

/**
 * The Markdown pipeline of finished messages: Streamdown's own default plugins, arranged so that a row
 * mounting again (a virtualized list unmounts rows that leave the screen) costs little.
 *
 * - A tree cache at both ends. Streamdown parses on every mount (micromark, GFM, remark-rehype, a parse5
 *   round trip, sanitize, harden): several milliseconds for a 1 KB message. On a hit the parser returns an
 *   empty document, the default transformers pass over it in no time, and the last transformer hands back
 *   the HTML tree (hast) the same pipeline built the first time for the same text. Streamdown renders the
 *   tree read-only, so sharing it is safe.
 * - Options kept out of Streamdown's processor key. Streamdown caches its unified processors under a key
 *   built on every render from the plugin list, JSON-stringifying each plugin's options (the sanitize
 *   schema is large): a millisecond per mount. Each configured plugin is wrapped in a named attacher
 *   that applies the same options, so the key is a few names.
 * - No parse5 round trip for a text without '<' or a footnote. rehype-raw turns raw HTML into elements;
 *   raw HTML (and autolinks) cannot occur in Markdown without '<', and the round trip then changes
 *   nothing but the spelling of GFM footnotes' boolean attributes (`data-footnotes="true"` becomes
 *   `""`), so it is skipped for texts with neither. Streamdown then adds its own step that turns HTML
 *   nodes into text, which finds none either. `markdown-pipeline.test.ts` renders a corpus both ways
 *   and compares the markup byte for byte.
 */
const CACHE_CHARS = 300_000;

// A tree is opaque here: it is only handed back to Streamdown.
const trees = new LRUCache<string, object>({
  maxSize: CACHE_CHARS,
  sizeCalculation: (_tree, text) => Math.max(1, text.length),
});

type Plugins = NonNullable<StreamdownProps['rehypePlugins']>;
type Attacher = (this: unknown, ...options: unknown[]) => unknown;
type Parser = (document: string, file: never) => object;

function named<T extends object>(name: string, fn: T): T {
  // Explicit names: Streamdown's processor key is made of plugin names, and minification renames functions.
  return Object.defineProperty(fn, 'name', { value: `agentlane-${name}` });
}

/** `[plugin, ...options]` → an attacher applying the same options under a stable name. */
function optionsOutOfKey(plugins: Plugins, list: string): Plugins {
  return plugins.map((pluggable, index) => {
    if (!Array.isArray(pluggable)) return pluggable;
    const [plugin, ...options] = pluggable as unknown as [Attacher, ...unknown[]];
    return named(`${list}-${index}`, function configured(this: unknown) {
      return plugin.call(this, ...options);
    });
  }) as Plugins;
}

/** Remark plugin: skips parsing a text whose tree is cached (the tree is supplied at the end instead). */
const reuseCachedTree = named('reuse-cached-tree', function reuseCachedTree(this: { parser?: Parser }) {
  const parse = this.parser;
  if (!parse) return;
  this.parser = (document, file) =>
    trees.has(document) ? { type: 'root', children: [] } : parse(document, file);
});

/** Rehype plugin, last: returns the cached tree on a hit and remembers a freshly built one otherwise. */
const rememberTree = named('remember-tree', function rememberTree() {
  return (tree: object, file: { value?: unknown }): object => {
    const text = String(file.value ?? '');
    const cached = trees.get(text);
    if (cached) return cached;
    trees.set(text, tree);
    return tree;
  };
});

const rehype = Object.entries(defaultRehypePlugins);
const remarkPlugins = [...optionsOutOfKey(Object.values(defaultRemarkPlugins), 'remark'), reuseCachedTree];
const withRaw = [
  ...optionsOutOfKey(
    rehype.map(([, plugin]) => plugin),
    'rehype',
  ),
  rememberTree,
];
const withoutRaw = [
  ...optionsOutOfKey(
    rehype.filter(([name]) => name !== 'raw').map(([, plugin]) => plugin),
    'rehype-noraw',
  ),
  rememberTree,
];

/** The plugins to give Streamdown for a finished message's text. */
export function finishedMessagePlugins(
  text: string,
): Pick<StreamdownProps, 'remarkPlugins' | 'rehypePlugins'> {
  const mayNeedRaw = text.includes('<') || text.includes('[^');
  return { remarkPlugins, rehypePlugins: mayNeedRaw ? withRaw : withoutRaw };
}

/** How many texts have a cached tree (for tests). */
export function cachedMarkdownTrees(): number {
  return trees.size;
}
