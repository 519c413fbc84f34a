/**
 * A module imported when a route is first called, then kept: the protocol translations bring the AI SDK,
 * AG-UI's zod schemas and encoders (some two hundred modules) that a server whose clients never speak them
 * should not load at start-up.
 */
export function lazyModule<M>(load: () => Promise<M>): () => Promise<M> {
  let loading: Promise<M> | undefined;
  return () => {
    loading ??= load().catch((err: unknown) => {
      loading = undefined; // a failed import is tried again on the next request
      throw err;
    });
    return loading;
  };
}
