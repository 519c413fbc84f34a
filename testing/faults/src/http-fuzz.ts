import fc from 'fast-check';

/** One route of the OpenAPI document: method and templated path (`/api/harness/sessions/{id}`). */
export interface FuzzRoute {
  method: string;
  path: string;
}

/** One malformed request: what to send, built from a route. */
export interface FuzzCase {
  method: string;
  /** Path and query, already encoded (may be deliberately broken). */
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** Every (method, path) of an OpenAPI 3 document. */
export function routesOf(doc: { paths: Record<string, Record<string, unknown>> }): FuzzRoute[] {
  const out: FuzzRoute[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item)) {
      if (['get', 'post', 'put', 'delete', 'patch'].includes(method))
        out.push({ method: method.toUpperCase(), path });
    }
  }
  return out;
}

const deepJson = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

/** Path parameter values: real ids, traversal, encoded slashes, NUL, overlong, undecodable. */
const idArb = (real: readonly string[]) =>
  fc.oneof(
    fc.constantFrom(...real),
    fc.constantFrom(
      '..%2f..%2fetc%2fpasswd',
      '%2e%2e',
      'a%2Fb',
      '%00',
      'a%00b',
      '%zz',
      '%',
      '%ff%fe',
      '%c3%28',
      'x'.repeat(120),
      'x'.repeat(300),
      'x'.repeat(700),
      '%F0%9F%92%A9',
      '__proto__',
      'constructor',
      'sha256-' + '0'.repeat(64),
    ),
    fc.string({ maxLength: 40 }).map(encodeURIComponent),
  );

const queryArb = fc.oneof(
  fc.constant(''),
  fc.constantFrom(
    '?limit=abc',
    '?limit=-1',
    '?limit=1e309',
    '?limit=99999999999999999999',
    '?after=1e30',
    '?after=0x10',
    '?after=-5',
    '?after=9007199254740993',
    '?cursor=%00',
    '?cursor=garbage',
    '?search=%00',
    '?search=%zz',
    '?engine=%00',
    '?namespace=%00',
    '?stageId=nope',
    '?limit=1&limit=2',
    '?__proto__[x]=1',
    `?search=${'a'.repeat(5000)}`,
  ),
  fc
    .dictionary(
      fc.constantFrom('limit', 'cursor', 'after', 'search', 'engine', 'namespace'),
      fc.string({ maxLength: 30 }),
      {
        maxKeys: 3,
      },
    )
    .map((q) => `?${new URLSearchParams(q).toString()}`),
);

const jsonBodyArb = fc.oneof(
  fc.constantFrom(
    '{',
    '{"engine":',
    'null',
    '[]',
    '"str"',
    '1e999',
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '{"prompt":"a\\u0000b"}',
    '{"title":"\\u0000"}',
    '{"engine":"builtin","workDir":"/"}',
    '{"engine":"builtin","workDir":"/etc"}',
    '{"engine":"builtin","metadata":{"a\\u0000":1}}',
    '{"prompt":"\\ud800"}',
    '{"clientId":"c","vector":{"c":1},"changes":[{"key":"k\\u0000","value":1,"version":1,"vector":{"c":1}}]}',
    `{"clientId":"c","vector":{"c":1},"changes":[{"key":"k","value":${deepJson(5000)},"version":1,"vector":{"c":1}}]}`,
    `{"engine":"builtin","metadata":{"a":${deepJson(3000)}}}`,
    `{"prompt":"${'x'.repeat(300_000)}"}`,
    '{"outcome":"selected"}',
    '{"outcome":"answered","choiceIds":[1,2]}',
  ),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc
    .record(
      {
        engine: fc.oneof(fc.constant('builtin'), fc.anything()),
        prompt: fc.oneof(fc.string(), fc.anything()),
        title: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
        clientId: fc.string({ maxLength: 10 }),
        outcome: fc.constantFrom('selected', 'cancelled', 'answered', 'declined', 5),
        expectedGeneration: fc.oneof(fc.integer(), fc.string()),
      },
      { requiredKeys: [] },
    )
    .map((v) => JSON.stringify(v)),
);

/** Invalid UTF-8 byte sequences inside what claims to be JSON. */
const badUtf8Arb = fc.constantFrom(
  Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
  Uint8Array.from([0x7b, 0x22, 0x70, 0x72, 0x6f, 0x6d, 0x70, 0x74, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
  Uint8Array.from([0xed, 0xa0, 0x80]),
);

const headerArb = fc.record(
  {
    range: fc.constantFrom(
      'bytes=abc',
      'bytes=5-1',
      'bytes=-0',
      'bytes=0-0,1-1',
      'bytes=99999999999999999999-',
      'items=0-1',
    ),
    'if-none-match': fc.constantFrom('*', '"x"', 'W/"y"', ',,,', '"' + 'a'.repeat(2000) + '"'),
    'idempotency-key': fc.oneof(
      fc.constantFrom('', ' ', 'k'.repeat(300), 'é'),
      fc.string({ minLength: 1, maxLength: 20 }),
    ),
    'last-event-id': fc.constantFrom('-1', 'abc', '1e30', '0x10', '9007199254740993', '99999999', ''),
    'content-type': fc.constantFrom(
      'application/json',
      'text/plain',
      'application/xml',
      'application/json; charset=latin1',
      'multipart/form-data',
    ),
    authorization: fc.constantFrom('Bearer', 'Basic abc', 'Bearer x y'),
  },
  { requiredKeys: [] },
);

/** Header values undici accepts: printable latin1, no CR/LF (those are the parser's own tests). */
const sendable = (h: Record<string, string>) =>
  Object.fromEntries(Object.entries(h).filter(([, v]) => /^[\x20-\x7e]*$/.test(v)));

/** Malformed requests across `routes`, path parameters filled from `realIds` or hostile values. */
export function fuzzCaseArb(
  routes: readonly FuzzRoute[],
  realIds: readonly string[],
): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      route: fc.constantFrom(...routes),
      id: idArb(realIds),
      id2: idArb(realIds),
      query: queryArb,
      body: fc.oneof(
        { weight: 6, arbitrary: jsonBodyArb },
        { weight: 1, arbitrary: badUtf8Arb },
        { weight: 1, arbitrary: fc.constant(undefined) },
      ),
      headers: headerArb,
      method: fc.oneof(
        { weight: 9, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.constantFrom('PATCH', 'OPTIONS', 'DELETE', 'PUT') },
      ),
    })
    .map(({ route, id, id2, query, body, headers, method }) => {
      let n = 0;
      const path = route.path.replace(/\{[^}]+\}/g, () => (n++ === 0 ? id : id2));
      const m = method ?? route.method;
      const withBody = m !== 'GET' && body !== undefined;
      const h = sendable(headers);
      if (withBody && h['content-type'] === undefined) h['content-type'] = 'application/json';
      return { method: m, url: `${path}${query}`, headers: h, ...(withBody ? { body } : {}) };
    });
}
