/**
 * The types of the engine entry fields a config file may set, checked when the file is loaded: a key of the
 * wrong type (`"apiKey": 42`), a base URL that is no http(s) URL, or a field only code can give (a function)
 * is refused naming the field (`engines.main.apiKey must be a string`), never echoing the value (a key or a
 * URL with credentials must not reach a log). Ranges and the rest are the adapters' own checks, made when the
 * driver is created; the ACP adapter checks every field of its entries with its own schema.
 */

/** One field: whether a value is of its type, what the message says otherwise, and its own fields. */
interface Field {
  ok: (value: unknown) => boolean;
  says: string;
  fields?: Fields;
}
type Fields = Record<string, Field>;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const isCount = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

const text: Field = { ok: (v) => typeof v === 'string', says: 'must be a string' };
const flag: Field = { ok: (v) => typeof v === 'boolean', says: 'must be true or false' };
const amount: Field = { ok: (v) => typeof v === 'number' && Number.isFinite(v), says: 'must be a number' };
const count: Field = { ok: isCount, says: 'must be a whole number' };
const url: Field = { ok: isHttpUrl, says: 'must be an http:// or https:// URL with a host' };
const code: Field = { ok: () => false, says: 'is set by code only, not in a config file' };
const object = (fields?: Fields): Field => ({
  ok: isObject,
  says: 'must be an object',
  ...(fields ? { fields } : {}),
});
const oneOf = (...values: string[]): Field => ({
  ok: (v) => typeof v === 'string' && values.includes(v),
  says: `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`,
});
const stringMap: Field = {
  ok: (v) => isObject(v) && Object.values(v).every((e) => typeof e === 'string'),
  says: 'must be an object of strings',
};

const WORKSPACE_TOOLS: Fields = {
  approveWrites: flag,
  approveCommands: flag,
  commandTimeoutMs: count,
  maxCommandTimeoutMs: count,
  maxCommandOutputBytes: count,
  maxCommandOutputFileBytes: count,
  outputDir: text,
  isolateCommands: flag,
  commandNetwork: oneOf('shared', 'none'),
};

const BUILTIN: Fields = {
  label: text,
  api: text,
  model: text,
  baseURL: url,
  apiKey: text,
  plan: flag,
  maxSteps: count,
  turnTokenBudget: count,
  turnCostBudget: amount,
  modelTimeouts: object({ firstByteMs: count, idleMs: count, totalMs: count }),
  rateLimitRetries: object({ attempts: count, maxDelayMs: count }),
  turnOutputBytes: count,
  turnTextBytes: count,
  turnTextOverflowBytes: count,
  maxToolCallsPerStep: count,
  toolInputBytes: count,
  toolResultBytes: count,
  outputDir: text,
  systemPrompt: text,
  // From a file, the SQLite path or postgres URL of the checkpoints' database (a saver object is code's).
  checkpoints: text,
  workspaceTools: {
    ok: (v) => v === false || isObject(v),
    says: 'must be false or an object',
    fields: WORKSPACE_TOOLS,
  },
  subagents: {
    ok: (v) => typeof v === 'boolean' || isObject(v),
    says: 'must be true, false or an object',
    fields: { maxDepth: count, plan: flag },
  },
  prices: object(),
  coalesceDeltas: flag,
  tools: code,
  plugins: code,
  clock: code,
  ids: code,
  modelFactory: code,
};

const OPENCODE: Fields = {
  label: text,
  url,
  binary: text,
  home: text,
  config: object(),
  env: stringMap,
  network: oneOf('loopback', 'open'),
  startTimeoutMs: count,
  settleMs: count,
  idleGraceMs: count,
  reconnectDelaysMs: {
    ok: (v) => Array.isArray(v) && v.every(isCount),
    says: 'must be a list of whole numbers',
  },
  onLog: code,
};

const FIELDS: Record<string, Fields> = {
  builtin: BUILTIN,
  opencode: OPENCODE,
  // The adapter's schema checks the rest of an ACP entry when its driver is made.
  acp: { modelBaseUrl: url },
  replay: {
    label: text,
    provider: text,
    speed: amount,
    trace: {
      ok: (v) => typeof v === 'string' || Array.isArray(v),
      says: 'must be a path or a list of frames',
    },
  },
  external: { label: text, idleTimeoutMs: count },
};

function firstWrong(value: Record<string, unknown>, fields: Fields, where: string): string | undefined {
  for (const [key, field] of Object.entries(fields)) {
    if (!Object.hasOwn(value, key)) continue;
    const v = value[key];
    if (!field.ok(v)) return `${where}.${key} ${field.says}`;
    if (field.fields && isObject(v)) {
      const inner = firstWrong(v, field.fields, `${where}.${key}`);
      if (inner) return inner;
    }
  }
  return undefined;
}

/**
 * The first engine entry field of the wrong type, as "engines.<name>.<field> must be …", or undefined.
 * Two entries of one name are refused too: only one of them could ever run.
 */
export function engineFieldProblem(
  engines: readonly ({ name: string; type: string } & Record<string, unknown>)[],
): string | undefined {
  const seen = new Map<string, number>();
  for (const [i, entry] of engines.entries()) {
    const first = seen.get(entry.name);
    if (first !== undefined)
      return `engines.${i} has the name "${entry.name}" of engines.${first}: give each engine its own name`;
    seen.set(entry.name, i);
    const wrong = firstWrong(entry, FIELDS[entry.type] ?? {}, `engines.${entry.name}`);
    if (wrong) return wrong;
  }
  return undefined;
}
