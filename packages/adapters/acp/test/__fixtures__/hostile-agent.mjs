// An ACP agent over stdio that misbehaves on request, for the driver's robustness tests. The prompt's text
// picks what it does:
//   close stdout      closes its stdout and stays alive (with a child) until killed
//   huge line         writes one line longer than the client's limit, without its newline, and stays alive
//   exit mid-turn     starts two grandchildren (`sleep`, `sh -c sleep`), tells their pids, and exits
//   garbage           sends lines that are no JSON objects and a response to an id never asked, then ends
//   malformed <n>     sends <n> rounds of JSON-RPC objects the SDK cannot use (a session/update whose params
//                     fail its schema, a response to an id never asked, a response without an id), then ends
//   permflood <n>     asks for <n> permissions at once, waits for every answer, then ends
//   permids           asks four permissions under the ids 1.5, "1_5", 1 and "1", says what each got, then ends
//   permdup           asks twice under the id 7 (the second while the first is pending), says what came back
//   permambiguous     asks with two options sharing the optionId x (Allow and Reject), says what came back
//   permbadkind       asks with an option of an unknown kind, says what came back
//   permtwice         asks under the id 7, waits for the answer, asks again under 7, says what each got
//   permonce          asks once under the id 7 (a second turn reuses the id of the first's), says what it got
//   stray error       answers an id never asked with an error, then ends
//   foreign           sends a message chunk for another session, then "hello" for its own, and ends
//   late now          says "on time" and ends the turn, then sends late output in the same write: a message
//                     chunk "late text", a tool call, a permission request (id "late-perm"), a command catalog
//                     and an extension notification (`_hostile/suggestion`, as Qwen Code suggests a next prompt)
//   late signal       the same, with the late output sent when the process gets SIGUSR1 (between turns)
//   late mode         the same, with the late output sent on the next session/set_mode, before its answer
//   report            says what the last late permission request got back ("late permission: cancelled")
//   anything else     answers "hello" and ends the turn
// With --modes it offers two modes (ask, code) in session/new, so the client may send session/set_mode.
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

const modes = process.argv.includes('--modes');
let next = 1;
let nextRequest = 1000;
/** By JSON-RPC id (1 and "1" apart): who waits for the responses to that id, in order. */
const waiting = new Map();
const ask = (sessionId, id, title, options) => {
  const answer = new Promise((resolve) => waiting.set(id, [...(waiting.get(id) ?? []), resolve]));
  write({
    jsonrpc: '2.0',
    id,
    method: 'session/request_permission',
    params: { sessionId, toolCall: { toolCallId: `tool-${title}`, title }, options },
  });
  return answer;
};
/** What a response said: the chosen option, "cancelled", or "error". */
const said = (response) =>
  response.error ? 'error' : (response.result?.outcome?.optionId ?? response.result?.outcome?.outcome);
const allowReject = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

/** What the last late permission request got back, once it has. */
let lateAnswer;
/** The session whose late output waits for SIGUSR1 or the next session/set_mode. */
let lateOnSignal;
let lateOnMode;
/** Output after the turn's answer: content the next run must not show, and a command catalog it may. */
const lateOutput = (sessionId) => {
  lateAnswer = new Promise((resolve) => waiting.set('late-perm', [resolve]));
  const toolCall = { toolCallId: 'late-tool', title: 'late tool', kind: 'edit', status: 'pending' };
  return [
    chunk(sessionId, 'late text'),
    { jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { sessionUpdate: 'tool_call', ...toolCall } } },
    {
      jsonrpc: '2.0',
      id: 'late-perm',
      method: 'session/request_permission',
      params: { sessionId, toolCall: { toolCallId: 'late-tool', title: 'late tool' }, options: allowReject },
    },
    {
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId,
        update: { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'late', description: 'Late' }] },
      },
    },
    { jsonrpc: '2.0', method: '_hostile/suggestion', params: { sessionId, suggestion: 'try again' } },
  ];
};
process.on('SIGUSR1', () => {
  if (lateOnSignal) write(...lateOutput(lateOnSignal));
  lateOnSignal = undefined;
});

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
  if (text.startsWith('malformed ')) {
    const n = Number(text.slice('malformed '.length));
    for (let i = 0; i < n; i++) {
      write(
        { jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { sessionUpdate: 42 } } },
        { jsonrpc: '2.0', id: 500000 + i, result: {} },
        { jsonrpc: '2.0', result: { i } },
      );
      if (out.writableNeedDrain) await drain();
    }
    write(chunk(sessionId, 'done'));
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
      answers.push(new Promise((resolve) => waiting.set(id, [resolve])));
      lines.push({
        jsonrpc: '2.0',
        id,
        method: 'session/request_permission',
        params: { sessionId, toolCall: { toolCallId: `tool-${i}`, title: `tool ${i}` }, options },
      });
    }
    write(...lines);
    const results = await Promise.all(answers);
    const allowed = results.filter((r) => r?.result?.outcome?.optionId === 'allow').length;
    write(chunk(sessionId, `allowed ${allowed}`));
    end();
    return;
  }
  if (await permissions(sessionId, text)) {
    end();
    return;
  }
  if (text === 'stray error') {
    write({ jsonrpc: '2.0', id: 99998, error: { code: -32603, message: 'no such request' } });
    end();
    return;
  }
  if (text.startsWith('late ')) {
    const response = { jsonrpc: '2.0', id: msg.id, result: { stopReason: 'end_turn' } };
    if (text === 'late now') write(chunk(sessionId, 'on time'), response, ...lateOutput(sessionId));
    else write(chunk(sessionId, 'on time'), response);
    if (text === 'late signal') lateOnSignal = sessionId;
    if (text === 'late mode') lateOnMode = sessionId;
    return;
  }
  if (text === 'report') {
    write(chunk(sessionId, `late permission: ${lateAnswer ? said(await lateAnswer) : 'none'}`));
    end();
    return;
  }
  if (text === 'foreign') write(chunk('another-session', 'not yours'));
  write(chunk(sessionId, 'hello'));
  end();
}

/** The permission modes: true when `text` was one (the turn then ends). */
async function permissions(sessionId, text) {
  if (text === 'permids') {
    const ids = [1.5, '1_5', 1, '1'];
    const results = await Promise.all(ids.map((id) => ask(sessionId, id, `request ${JSON.stringify(id)}`, allowReject)));
    write(chunk(sessionId, ids.map((id, i) => `${JSON.stringify(id)}=${said(results[i])}`).join(' ')));
    return true;
  }
  if (text === 'permdup') {
    const first = ask(sessionId, 7, 'delete prod db', allowReject);
    const second = ask(sessionId, 7, 'read readme', allowReject);
    // Both wait on the id 7: the responses, in the order they came.
    const results = await Promise.all([first, second]);
    write(chunk(sessionId, `7: ${results.map(said).join(', ')}`));
    return true;
  }
  if (text === 'permtwice') {
    const first = said(await ask(sessionId, 7, 'first', allowReject));
    const second = said(await ask(sessionId, 7, 'second', allowReject));
    write(chunk(sessionId, `7: ${first}, ${second}`));
    return true;
  }
  if (text === 'permonce') {
    write(chunk(sessionId, `7: ${said(await ask(sessionId, 7, 'once', allowReject))}`));
    return true;
  }
  if (text === 'permambiguous') {
    const options = [
      { optionId: 'x', name: 'Allow', kind: 'allow_once' },
      { optionId: 'x', name: 'Reject', kind: 'reject_once' },
    ];
    write(chunk(sessionId, `ambiguous: ${said(await ask(sessionId, 8, 'ambiguous', options))}`));
    return true;
  }
  if (text === 'permbadkind') {
    const options = [{ optionId: 'y', name: 'Yes', kind: 'allow_forever' }];
    write(chunk(sessionId, `bad kind: ${said(await ask(sessionId, 9, 'bad kind', options))}`));
    return true;
  }
  return false;
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === undefined) {
    // A response: to a permission request, or the client's refusal of a bad line (id null).
    const queue = waiting.get(msg.id) ?? [];
    queue.shift()?.(msg);
    if (queue.length === 0) waiting.delete(msg.id);
    return;
  }
  const reply = (result) => write({ jsonrpc: '2.0', id: msg.id, result });
  switch (msg.method) {
    case 'initialize':
      reply({ protocolVersion: 1, agentCapabilities: {}, agentInfo: { name: 'hostile-agent', version: '1.0.0' } });
      return;
    case 'session/new':
      reply({
        sessionId: `hostile-${process.pid}-${next++}`,
        ...(modes
          ? { modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }] } }
          : {}),
      });
      return;
    case 'session/set_mode':
      if (lateOnMode) write(...lateOutput(lateOnMode));
      lateOnMode = undefined;
      reply({});
      return;
    case 'session/prompt':
      void prompt(msg);
      return;
    default:
      if (msg.id !== undefined) write({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'not found' } });
  }
});
