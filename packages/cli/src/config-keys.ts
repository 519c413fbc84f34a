import jsonc from 'jsonc-parser';

/** A path segment of at most this many characters is shown whole; longer ones are cut. */
const MAX_SEGMENT = 64;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A JSON path as the messages name it: `engines.main.apiKey`. An element of `engines` is named by its engine's
 * name when it has one (else its index), every other array element by its index.
 */
export function pathText(path: readonly (string | number)[], root: unknown): string {
  const shown = path.map((segment, i) => {
    if (typeof segment === 'number' && i === 1 && path[0] === 'engines' && isObject(root)) {
      const engine = (root.engines as unknown[] | undefined)?.[segment];
      const name = isObject(engine) ? engine.name : undefined;
      if (typeof name === 'string' && name.length > 0) return name;
    }
    const text = String(segment);
    return text.length > MAX_SEGMENT ? `${text.slice(0, MAX_SEGMENT)}…` : text;
  });
  return shown.join('.');
}

/**
 * The first key that appears twice in one object of the (already parsed) JSON text, with its 1-based line,
 * or undefined. JSON.parse and jsonc-parser keep the last one silently; jsonc-parser's visitor reports every
 * property with its unescaped name (so `"a\u0062"` and `"ab"` are the same key) and the path of its object.
 * One set of names per open object: the work is linear in the text, which the loader bounds (4 MiB).
 */
export function firstDuplicateKey(text: string): { path: (string | number)[]; line: number } | undefined {
  const open: Set<string>[] = [];
  let found: { path: (string | number)[]; line: number } | undefined;
  jsonc.visit(
    text,
    {
      onObjectBegin: () => {
        open.push(new Set());
      },
      onObjectEnd: () => {
        open.pop();
      },
      onObjectProperty: (name, _offset, _length, startLine, _startCharacter, pathOf) => {
        const keys = open[open.length - 1];
        if (!keys || found) return;
        if (keys.has(name)) found = { path: [...pathOf(), name], line: startLine + 1 };
        keys.add(name);
      },
    },
    { allowTrailingComma: true, disallowComments: false },
  );
  return found;
}
