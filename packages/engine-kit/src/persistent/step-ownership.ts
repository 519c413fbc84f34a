/**
 * Which entries a translation step's state already owns (made or copied in this step), kept beside the
 * state (which stays plain JSON) and forgotten with it. A translator copies an entry of a persistent map the
 * first time a step changes it and changes that copy in place afterwards: `owns(state, key)` is true exactly
 * once per state and key.
 */
export function stepOwnership<S extends object>(): (state: S, key: string) => boolean {
  const owned = new WeakMap<S, Set<string>>();
  return (state, key) => {
    let keys = owned.get(state);
    if (!keys) {
      keys = new Set();
      owned.set(state, keys);
    }
    if (keys.has(key)) return false;
    keys.add(key);
    return true;
  };
}
