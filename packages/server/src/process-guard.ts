/**
 * The last line of defence of a serving process: an unhandled promise rejection (Node's default is to exit
 * with code 1) is logged and the process keeps serving every other client. Root causes are still fixed
 * where they are found; this only stops one overlooked rejection from becoming a remote kill switch.
 * Returns the function that removes the listener (for tests and embedders).
 */
export function keepServingOnUnhandledRejection(log: (line: string) => void): () => void {
  const onRejection = (reason: unknown): void => {
    const text = reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
    log(`agentlane: error: unhandled rejection (kept serving): ${text}`);
  };
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('unhandledRejection', onRejection);
  };
}
