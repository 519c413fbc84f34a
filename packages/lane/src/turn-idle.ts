export const IDLE = Symbol('idle');

/**
 * The deadline of a turn whose engine went silent: it expires when the engine emitted nothing for `ms` while
 * nobody was being asked (an approval or question has its own timeout). Without it an engine that never ended
 * its turn (an ACP agent that took `session/prompt` and never answered, an OpenCode session that stalled after
 * one part) held its run, and the client's run slot, until someone cancelled it by hand. 0: never.
 */
export function turnIdleWatch(ms: number) {
  let timer: NodeJS.Timeout | undefined;
  let asking = 0;
  let expire: (value: typeof IDLE) => void = () => {};
  const expired = new Promise<typeof IDLE>((resolve) => {
    expire = resolve;
  });
  const arm = () => {
    clearTimeout(timer);
    if (ms > 0 && asking === 0) {
      timer = setTimeout(() => expire(IDLE), ms);
      timer.unref();
    }
  };
  arm();
  return {
    expired,
    /** The engine emitted a frame. */
    touch: arm,
    /** Around an approval or a question: the wait is the asker's, not the engine's silence. */
    async asking<T>(wait: Promise<T>): Promise<T> {
      asking++;
      clearTimeout(timer);
      try {
        return await wait;
      } finally {
        asking--;
        arm();
      }
    },
    stop: () => clearTimeout(timer),
  };
}
