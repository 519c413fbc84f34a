import type { createServer } from '@agentlane/server';

/** Listens on 127.0.0.1 at a free port; resolves to the harness API's base URL there. */
export async function listenLocal(server: Awaited<ReturnType<typeof createServer>>): Promise<string> {
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const address = server.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return `http://127.0.0.1:${port}/api/harness`;
}
