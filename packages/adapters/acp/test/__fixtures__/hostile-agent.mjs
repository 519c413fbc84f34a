// An ACP agent over stdio that misbehaves on request, for the driver's robustness tests. The prompt's text
// picks what it does:
//   close stdout      closes its stdout and stays alive (with a child) until killed
//   huge line         writes one line longer than the client's limit, without its newline, and stays alive
//   exit mid-turn     starts two grandchildren (`sleep`, `sh -c sleep`), tells their pids, and exits
//   garbage           sends lines that are no JSON objects and a response to an id never asked, then ends
//   permflood <n>     asks for <n> permissions at once, waits for every answer, then ends
//   anything else     answers "hello" and ends the turn
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const out = process.stdout;
const write = (...messages) => out.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
const chunk = (sessionId, text) => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } },
});
const drain = () => new Promise((resolve) => out.once('drain', resolve));

let next = 1;
let nextRequest = 1000;
const waiting = new Map();

async function prompt(msg) {
  const sessionId = msg.params.sessionId;
  const text = msg.params.prompt?.[0]?.text ?? '';
  const end = (stopReason = 'end_turn') => write({ jsonrpc: '2.0', id: msg.id, result: { stopReason } });
  if (text === 'close stdout') {
    spawn('/bin/sh', ['-c', 'exec sleep 1002'], { stdio: 'ignore' });
    write(chunk(sessionId, 'closing stdout'));
    out.end();
    setInterval(() => undefined, 60_000);
    return;
  }
  if (text === 'huge line') {
    out.write('{"jsonrpc":"2.0","method":"session/update","params":{"text":"');
    const block = 'A'.repeat(1024 * 1024);
    for (let i = 0; i < 40; i++) if (!out.write(block)) await drain();
    setInterval(() => undefined, 60_000);
    return;
  }
  if (text === 'exit mid-turn') {
    const a = spawn('/bin/sh', ['-c', 'exec sleep 1000'], { stdio: 'ignore' });
    const b = spawn('/bin/sh', ['-c', 'sleep 1001 & wait'], { stdio: 'ignore' });
    write(chunk(sessionId, `pids ${a.pid} ${b.pid}`));
    setTimeout(() => process.exit(3), 200);
    return;
  }
  if (text === 'garbage') {
    out.write(`{garbage\n"str"\nnull\n[1,2,3]\n{${'x'.repeat(5000)}\n`);
    write({ jsonrpc: '2.0', id: 99999, result: {} });
    end();
    return;
  }
  if (text.startsWith('permflood ')) {
    const n = Number(text.slice('permflood '.length));
    const options = [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }];
    const answers = [];
    const lines = [];
    for (let i = 0; i < n; i++) {
      const id = nextRequest++;
      answers.push(new Promise((resolve) => waiting.set(id, resolve)));
      lines.push({
        jsonrpc: '2.0',
        id,
        method: 'session/request_permission',
        params: { sessionId, toolCall: { toolCallId: `tool-${i}`, title: `tool ${i}` }, options },
      });
    }
    write(...lines);
    const results = await Promise.all(answers);
    const allowed = results.filter((r) => r?.outcome?.optionId === 'allow').length;
    write(chunk(sessionId, `allowed ${allowed}`));
    end();
    return;
  }
  write(chunk(sessionId, 'hello'));
  end();
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === undefined) {
    // A response: to a permission request, or the client's refusal of a bad line (id null).
    waiting.get(msg.id)?.(msg.result);
    waiting.delete(msg.id);
    return;
  }
  const reply = (result) => write({ jsonrpc: '2.0', id: msg.id, result });
  switch (msg.method) {
    case 'initialize':
      reply({ protocolVersion: 1, agentCapabilities: {}, agentInfo: { name: 'hostile-agent', version: '1.0.0' } });
      return;
    case 'session/new':
      reply({ sessionId: `hostile-${process.pid}-${next++}` });
      return;
    case 'session/prompt':
      void prompt(msg);
      return;
    default:
      if (msg.id !== undefined) write({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'not found' } });
  }
});
