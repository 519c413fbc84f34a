// Turns validator locations (JSON Pointers) into JSONPath-style strings people can read: $.payload.entries[0].

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Appends one key or index to a JSONPath-style path. */
export function appendPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (/^(0|[1-9][0-9]*)$/.test(key)) return `${path}[${key}]`;
  if (IDENTIFIER.test(key)) return `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/** `/payload/entries/0` -> `$.payload.entries[0]` (RFC 6901 escapes undone). */
export function pointerToPath(pointer: string): string {
  if (pointer === '' || pointer === '/') return '$';
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<string>((path, segment) => appendPath(path, segment), '$');
}
