/**
 * The fields of the objects and arrays in `state` that no earlier state had (`seen` holds those): what one
 * translation step built anew. A step that copies a map of every tool call builds one field per call, so a
 * translator whose steps stay under a bound whatever the size of the run is linear in its frames.
 */
export function freshFields(state: unknown, seen: WeakSet<object>): number {
  let fields = 0;
  const stack: unknown[] = [state];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null || seen.has(v)) continue;
    seen.add(v);
    const values = Array.isArray(v) ? v : Object.values(v);
    fields += values.length;
    for (const x of values) stack.push(x);
  }
  return fields;
}
