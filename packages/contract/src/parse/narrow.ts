// Explains a failed union by the branch the value meant. The contract's unions are discriminated by `kind`
// or `type`; before errors are collected, every such union in the schema is replaced, along the value's own
// structure, by the branch its discriminator selects. A bad `message.delta` event then reports the fields of
// `message.delta` instead of thirty "did not match" lines.

type Node = { [key: string]: unknown };

const DISCRIMINATORS = ['kind', 'type'] as const;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The values a branch accepts for discriminator `d` (its const or enum), or undefined if it has none. */
function tagsOf(branch: unknown, d: string): unknown[] | undefined {
  if (!isNode(branch) || !isNode(branch['properties'])) return undefined;
  const property = branch['properties'][d];
  if (!isNode(property)) return undefined;
  if ('const' in property) return [property['const']];
  if (Array.isArray(property['enum'])) return property['enum'];
  return undefined;
}

function narrowUnion(branches: unknown[], value: unknown): unknown {
  for (const d of DISCRIMINATORS) {
    const tags = branches.map((branch) => tagsOf(branch, d));
    if (tags.some((t) => t === undefined)) continue;
    if (!isNode(value)) return { type: 'object' };
    const tag = value[d];
    const index = tags.findIndex((t) => t?.includes(tag));
    if (index >= 0) return narrow(branches[index], value);
    // No branch has this tag: the only useful error is about the tag itself.
    return { type: 'object', required: [d], properties: { [d]: { enum: tags.flat() } } };
  }
  return undefined;
}

/** A copy of `schema` with every discriminated union resolved against `value`. */
export function narrow(schema: unknown, value: unknown): unknown {
  if (!isNode(schema)) return schema;
  if (Array.isArray(schema['anyOf'])) {
    const narrowed = narrowUnion(schema['anyOf'], value);
    if (narrowed !== undefined) return narrowed;
    return schema;
  }
  const out: Node = { ...schema };
  if (isNode(schema['properties']) && isNode(value)) {
    const properties: Node = {};
    for (const [name, sub] of Object.entries(schema['properties'])) {
      properties[name] = Object.hasOwn(value, name) ? narrow(sub, value[name]) : sub;
    }
    out['properties'] = properties;
  }
  if (isNode(schema['items']) && Array.isArray(value)) {
    // Each element may pick a different branch, so the narrowed array lists one schema per element.
    out['prefixItems'] = value.map((item) => narrow(schema['items'], item));
  }
  if (isNode(schema['patternProperties']) && isNode(value)) {
    const [pattern, sub] = Object.entries(schema['patternProperties'])[0] ?? [];
    if (pattern !== undefined && Object.keys(schema['patternProperties']).length === 1) {
      const properties: Node = { ...(isNode(out['properties']) ? out['properties'] : {}) };
      for (const [name, item] of Object.entries(value)) properties[name] = narrow(sub, item);
      out['properties'] = properties;
    }
  }
  return out;
}
