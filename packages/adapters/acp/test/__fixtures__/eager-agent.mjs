// A minimal ACP agent over stdio for driver tests. Like Claude Code, it sends a session/update right after
// each session response, and here in the same write, so the client reads both before it can act on the
// response: the worst case of that race, every time.
import { createInterface } from 'node:readline';

const write = (...messages) => process.stdout.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
const commands = (sessionId) => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: {
    sessionId,
    update: { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'hello', description: 'Say hello' }] },
  },
});
const chunk = (sessionId, text) => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } },
});

// With --fork it advertises sessionCapabilities.fork and answers session/fork with a new session id.
const forks = process.argv.includes('--fork');
let next = 1;
// A prompt that says "wait for a cancel" is held open; the agent misses the first session/cancel (as Cline did
// under load) and answers `cancelled` on the second.
let held;
let cancels = 0;
const notFound = (id) => ({ jsonrpc: '2.0', id, error: { code: -32601, message: 'not found' } });
createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  const reply = (result) => ({ jsonrpc: '2.0', id: msg.id, result });
  switch (msg.method) {
    case 'initialize':
      write(
        reply({
          protocolVersion: 1,
          agentCapabilities: { loadSession: true, ...(forks ? { sessionCapabilities: { fork: {} } } : {}) },
          agentInfo: { name: 'eager-agent', version: '1.0.0' },
        }),
      );
      return;
    case 'session/new': {
      const sessionId = `sess-${process.pid}-${next++}`;
      write(reply({ sessionId }), commands(sessionId));
      return;
    }
    case 'session/fork': {
      if (!forks) {
        write(notFound(msg.id));
        return;
      }
      const sessionId = `fork-of-${msg.params.sessionId}-${next++}`;
      write(reply({ sessionId }), commands(sessionId));
      return;
    }
    case 'session/load':
      write(chunk(msg.params.sessionId, 'replayed history'), reply({}), commands(msg.params.sessionId));
      return;
    case 'session/prompt':
      if (msg.params.prompt?.[0]?.text === 'wait for a cancel') {
        held = msg.id;
        cancels = 0;
        write(chunk(msg.params.sessionId, 'waiting'));
        return;
      }
      write(chunk(msg.params.sessionId, 'hello from the eager agent'), reply({ stopReason: 'end_turn' }));
      return;
    case 'session/cancel':
      cancels += 1;
      if (held !== undefined && cancels >= 2) {
        write({ jsonrpc: '2.0', id: held, result: { stopReason: 'cancelled' } });
        held = undefined;
      }
      return;
    default:
      if (msg.id !== undefined) write(notFound(msg.id));
  }
});
