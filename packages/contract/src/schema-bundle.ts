import { CONTRACT_SCHEMAS, type ContractShapeName } from './schemas/registry.js';

// Builds the JSON Schema 2020-12 bundle a non-TypeScript client reads: one $defs entry per named shape, where
// a named shape used inside another becomes a $ref. Pure and deterministic; the generator script writes it
// to schema/agentlane.schema.json and the schema gate fails when the committed file differs.

export const SCHEMA_BUNDLE_ID = 'https://agentlane.dev/schema/agentlane.schema.json';

type JsonSchemaNode = { [key: string]: unknown };

function isNode(value: unknown): value is JsonSchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Plain JSON copy: drops TypeBox's symbol markers. */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

function withoutDescription(node: JsonSchemaNode): string {
  const { description: _ignored, ...rest } = node;
  return JSON.stringify(rest);
}

function refer(value: unknown, defs: Map<string, JsonSchemaNode>, isRoot: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => refer(item, defs, false));
  if (!isNode(value)) return value;
  const title = value['title'];
  if (!isRoot && typeof title === 'string' && defs.has(title)) {
    const def = defs.get(title) as JsonSchemaNode;
    if (withoutDescription(def) !== withoutDescription(value)) {
      throw new Error(`schema titled ${title} differs from $defs/${title}: two shapes share one title`);
    }
    const ref: JsonSchemaNode = { $ref: `#/$defs/${title}` };
    if (value['description'] !== def['description']) ref['description'] = value['description'];
    return ref;
  }
  const out: JsonSchemaNode = {};
  for (const [key, child] of Object.entries(value)) {
    // `properties` and `patternProperties` hold names, not schemas; their values are schemas.
    out[key] =
      (key === 'properties' || key === 'patternProperties' || key === '$defs') && isNode(child)
        ? Object.fromEntries(Object.entries(child).map(([name, sub]) => [name, refer(sub, defs, false)]))
        : refer(child, defs, false);
  }
  return out;
}

/** The whole bundle as a JSON value. */
export function buildSchemaBundle(): JsonSchemaNode {
  const names = (Object.keys(CONTRACT_SCHEMAS) as ContractShapeName[]).sort();
  const defs = new Map<string, JsonSchemaNode>();
  for (const name of names) {
    const schema = plain(CONTRACT_SCHEMAS[name]) as JsonSchemaNode;
    if (schema['title'] !== name) throw new Error(`schema ${name} must carry title "${name}"`);
    defs.set(name, schema);
  }
  const $defs: JsonSchemaNode = {};
  for (const name of names) $defs[name] = refer(defs.get(name), defs, true);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: SCHEMA_BUNDLE_ID,
    title: 'agentlane contract',
    description:
      'Every wire shape of the agentlane contract (canonical events, delivery rows, stream events, audit rows, ' +
      'checkpoints, session state, version vectors, and the REST views, error bodies, sync, audit and ' +
      'checkpoint pages of /api/harness). Validate a value against #/$defs/<Name>. Readers of ' +
      'StreamEvent skip frames whose `type` they do not know instead of failing.',
    $defs,
  };
}

/** The bundle exactly as committed: 2-space JSON with a trailing newline. */
export function renderSchemaBundle(): string {
  return `${JSON.stringify(buildSchemaBundle(), null, 2)}\n`;
}
