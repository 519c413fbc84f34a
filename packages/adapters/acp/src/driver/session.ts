import type { ClientConnection } from '@agentclientprotocol/sdk';
import type { JsonObject, JsonValue, NegotiatedCapabilities } from '@agentlane/contract';
import {
  asObject,
  asString,
  type EngineSession,
  isObject,
  listOf,
  type OpenSessionOptions,
  type OwnedProcess,
  type RawFrame,
  type SessionBinding,
  type TurnInput,
  type TurnIO,
  type TurnOutcome,
} from '@agentlane/engine-kit';
import { negotiateAcpCapabilities } from '../translate/capabilities.js';
import { LATE_FIELD } from '../translate/late-frames.js';
import { ACP_COMMANDS_EVENT, ACP_WIRE_WARNING_EVENT } from '../translate/translator.js';
import type { AcpEngineConfig } from './config.js';
import { connectAcp, type WireDirection } from './connection.js';
import { spawnAcpEngine } from './engine-process.js';
import { SESSION_FORK } from './fork.js';
import { acpHandshake } from './handshake.js';
import { answerPermission } from './permissions.js';
import { waitForQuiet } from './quiet.js';
import { RequestLedger } from './request-ledger.js';
import { errorMessage, harness } from './rpc-util.js';
import { TurnWindow } from './turn-window.js';

/** How often a cancel is sent again while the agent has not ended the cancelled prompt. */
const CANCEL_RESEND_MS = 2000;

/** How long the agent must be silent after a session/load before the first prompt, and the most to wait. */
const REPLAY_QUIET_MS = 250;
const REPLAY_WAIT_MAX_MS = 5_000;

/** How much of a line that is no JSON object goes into its warning. */
const BAD_LINE_KEEP_CHARS = 1024;

/** How long an engine whose output ended may take to exit by itself before its group is killed. */
const OUTPUT_END_GRACE_MS = 1000;

/** Requests whose successful response binds the native session (session.bound must follow it directly). */
const SESSION_METHODS = new Set(['session/new', 'session/load', 'session/resume', 'session/fork']);

/** A frame waiting to be emitted, with the wire line that carried it (none for frames agentlane makes). */
type Pending = { frame: JsonValue; raw?: RawFrame | undefined };

/** One ACP session: its engine process, the wire to it, and the frames it emits into the run's source lane. */
export class AcpSession implements EngineSession {
  binding!: SessionBinding;
  private sink: (frame: JsonValue, raw?: RawFrame) => void;
  /** Frames outside a turn go to the open-time emit: the lane keeps them for the next run, bounded. */
  private readonly betweenTurns: (frame: JsonValue, raw?: RawFrame) => void;
  private io: TurnIO | null = null;
  private sessionId = '';
  private configOptions: JsonObject[] = [];
  private hasModes = false;
  private dead = false;
  /** Why the wire to the agent is gone (its output ended or could not be read); the session is then unusable. */
  private broken: string | null = null;
  private closing = false;
  /** Resolves (null) when the running turn is cancelled; one abort listener per turn, however many requests. */
  private turnAborted: Promise<null> | null = null;
  /** The driver killed the engine because its output could not be read: the turn reports that, not the exit. */
  private killedForWire = false;
  /** Requests either way not answered yet: stray responses, refused duplicates, approval ids (request-ledger.ts). */
  private readonly requests: RequestLedger;
  /** Which of the agent's messages come after its turn's answer, before the next prompt (turn-window.ts). */
  private readonly window = new TurnWindow();
  /** JSON-RPC ids of the session/new|load|resume|fork requests sent while starting. */
  private readonly sessionRequests = new Set<string | number>();
  /**
   * Frames that arrived after the session response but before session.bound was emitted: they wait, so the
   * recorded order is response → session.bound → the rest. Without this an agent notification sent right
   * after the response (Claude Code sends its command catalog on a 0 ms timer) can reach the source lane
   * first, and a translator that has not seen a harness frame yet starts the session from the bare response
   * (generation 1, capabilities negotiated without the harness's view).
   */
  private held: Pending[] | null = null;
  /** A session/load succeeded: the first prompt waits until the history replay has gone quiet (quiet.ts). */
  private replayPending = false;
  /** When the agent last sent anything (ms since the epoch). */
  private lastAgentFrameAt = 0;

  private constructor(
    private readonly config: AcpEngineConfig,
    private readonly engine: OwnedProcess,
    emit: (frame: JsonValue, raw?: RawFrame) => void,
  ) {
    this.sink = emit;
    this.betweenTurns = emit;
    this.requests = new RequestLedger(config.maxPendingPermissions);
  }

  static async open(
    config: AcpEngineConfig,
    provider: string,
    options: OpenSessionOptions,
  ): Promise<AcpSession> {
    const { engine, home } = await spawnAcpEngine(config, options);
    const session = new AcpSession(config, engine, options.emit);
    try {
      await session.start(provider, options, home);
    } catch (error) {
      await engine.kill(500);
      const tail = engine.stderrTail().trim().split('\n').slice(-5).join('\n');
      throw new Error(`${errorMessage(error)}${tail ? ` (engine stderr: ${tail})` : ''}`);
    }
    session.sink = session.betweenTurns;
    return session;
  }

  private conn!: ClientConnection;

  private record = (dir: WireDirection, msg: JsonValue, raw: string): boolean => {
    const rpc = isObject(msg) ? msg : undefined;
    const id = typeof rpc?.id === 'string' || typeof rpc?.id === 'number' ? rpc.id : undefined;
    if (dir === 'client->agent' && id !== undefined && SESSION_METHODS.has(asString(rpc?.method) ?? '')) {
      this.sessionRequests.add(id);
    }
    if (dir === 'agent->client') this.lastAgentFrameAt = Date.now();
    const toSdk = this.requests.reachesSdk(dir, rpc, id);
    // Late (after the turn's answer): marked in its own frame, which may land in either run (turn-window.ts).
    const late = this.window.late(dir, rpc, id);
    // What the driver made of the message (a stray response, a refused request) goes just before it.
    for (const before of this.requests.record(dir, rpc, id, late)) this.emit(before);
    this.emit(late ? { dir, msg, [LATE_FIELD]: true } : { dir, msg }, raw);
    if (
      dir === 'agent->client' &&
      id !== undefined &&
      rpc?.method === undefined &&
      this.sessionRequests.has(id)
    ) {
      this.sessionRequests.delete(id);
      // A failed load falls back to session/new; only a bound session holds what follows.
      if (rpc?.result !== undefined && this.held === null) this.held = [];
    }
    // The command catalog is also kept as a durable provider event, replayed as commands.updated.
    const update =
      isObject(msg) && msg.method === 'session/update' ? asObject(asObject(msg.params)?.update) : undefined;
    if (update?.sessionUpdate === 'available_commands_update') {
      this.emit({
        event: ACP_COMMANDS_EVENT,
        sessionId: asString(asObject((msg as JsonObject).params)?.sessionId) ?? this.sessionId,
        availableCommands: update.availableCommands ?? [],
      });
    }
    return toSdk;
  };

  private emit(frame: JsonValue, raw?: RawFrame): void {
    if (this.held) this.held.push({ frame, raw });
    else this.sink(frame, raw);
  }

  /** Emits session.bound right after the session response, then the frames that arrived in between. */
  private emitBound(frame: JsonValue): void {
    const held = this.held ?? [];
    this.held = null;
    this.emit(frame);
    for (const f of held) this.emit(f.frame, f.raw);
  }

  private async start(provider: string, options: OpenSessionOptions, home: string): Promise<void> {
    this.conn = connectAcp(this.engine, {
      record: this.record,
      requestPermission: (params, requestId) =>
        answerPermission(this.requests, params, requestId, {
          io: this.io,
          aborted: this.turnAborted,
          sessionId: this.sessionId || null,
        }),
      wire: {
        invalid: (reason, raw) =>
          this.emit({
            event: ACP_WIRE_WARNING_EVENT,
            reason,
            line: raw.slice(0, BAD_LINE_KEEP_CHARS),
            length: raw.length,
          }),
        ended: (error) => this.outputEnded(error),
      },
    });
    const { protocolVersion, agent, agentCapabilities, origin, result, sessionId } = await acpHandshake(
      this.conn,
      this.engine,
      this.config,
      options,
      (frame) => this.emit(frame),
    );
    this.sessionId = sessionId;
    this.replayPending = origin === 'load';
    this.configOptions = listOf(result.configOptions).filter(isObject);
    this.hasModes = isObject(result.modes);
    const capabilities: NegotiatedCapabilities = negotiateAcpCapabilities({
      agentCapabilities,
      configOptions: this.configOptions,
      hasModes: this.hasModes,
      observed: this.config.observed ?? {},
      clientWritesFiles: false,
      injectsMcpServers: false,
    });
    this.emitBound(
      harness({
        harness: 'session.bound',
        origin,
        generation: options.generation,
        nativeSessionId: this.sessionId,
        capabilities,
        ...(agent ? { agent } : {}),
        cwd: options.workDir,
        protocolVersion,
      }),
    );
    this.binding = {
      provider,
      nativeSessionId: this.sessionId,
      runtimeBinding: {
        command: this.config.command,
        args: this.config.args ?? [],
        home,
        cwd: options.workDir,
        pid: this.engine.pid,
        // Whether the server may fork this session (fork.ts): only agents that advertise session/fork.
        [SESSION_FORK]: isObject(asObject(agentCapabilities.sessionCapabilities)?.fork),
      },
      protocolVersion,
      capabilities,
    };
    // A process that dies between turns is noticed by the next turn.
    void this.engine.exited.then(() => {
      this.dead = true;
    });
  }

  /**
   * The agent's output ended or failed (a line over the limit): no answer can reach this session any more.
   * It reports itself dead, so the lane starts a new engine process for the next run, and the group goes:
   * at once after a read failure, after a short grace (to exit by itself, with its own code) after an end.
   */
  private outputEnded(error: unknown): void {
    if (this.closing) return;
    this.broken =
      error === undefined
        ? 'the engine closed its output (ACP connection closed)'
        : `the engine's output could not be read: ${errorMessage(error)}`;
    if (error !== undefined) {
      this.killedForWire = true;
      void this.engine.kill(500);
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, OUTPUT_END_GRACE_MS);
      timer.unref();
    });
    void Promise.race([this.engine.exited, grace]).then(() => {
      clearTimeout(timer);
      return this.engine.kill(500);
    });
  }

  isAlive(): boolean {
    return !this.dead && this.broken === null && !this.conn?.signal.aborted && !this.engine.exit();
  }

  async runTurn(turn: TurnInput, io: TurnIO): Promise<TurnOutcome> {
    // The lane asks isAlive() before each turn; this only catches a death in the moment since.
    if (!this.isAlive()) {
      const why = this.broken ?? 'the engine process is no longer running';
      throw new Error(`${why}; the next run starts a new one`);
    }
    this.io = io;
    this.sink = (frame, raw) => io.emit(frame, raw);
    // session/cancel is a notification nobody acknowledges, and an agent that is between two steps when it
    // arrives can miss it (Cline under load went on to stream its whole answer): it is sent again every
    // CANCEL_RESEND_MS until the prompt settles. A second cancel of the same prompt changes nothing.
    let resend: ReturnType<typeof setInterval> | undefined;
    const cancel = () => {
      void this.conn.agent.notify('session/cancel', { sessionId: this.sessionId }).catch(() => undefined);
    };
    let abortTurn: (value: null) => void = () => undefined;
    this.turnAborted = new Promise<null>((resolve) => {
      abortTurn = resolve;
    });
    const onAbort = () => {
      abortTurn(null);
      cancel();
      resend = setInterval(cancel, CANCEL_RESEND_MS);
    };
    io.signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (this.replayPending) {
        this.replayPending = false;
        await waitForQuiet(() => this.lastAgentFrameAt, REPLAY_QUIET_MS, REPLAY_WAIT_MAX_MS, io.signal);
      }
      await this.applyChoices(turn);
      const prompt = this.conn.agent.request('session/prompt', {
        sessionId: this.sessionId,
        prompt: [{ type: 'text', text: turn.prompt }],
      });
      const exit = this.engine.exited.then((e) => ({ exited: e }));
      const settled = await Promise.race([
        prompt.then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        ),
        exit,
      ]);
      if ('exited' in settled && !this.killedForWire) return this.died(settled.exited);
      if ('error' in settled) {
        // A dead pipe rejects the prompt a moment before the exit event: prefer the exit.
        const late = await Promise.race([exit, new Promise<null>((r) => setTimeout(() => r(null), 200))]);
        if (late && !this.killedForWire) return this.died(late.exited);
      }
      // The wire broke (output closed, a line over the limit): throwing makes the lane drop the session.
      if (this.broken !== null || this.conn.signal.aborted) {
        const why =
          this.broken ?? ('error' in settled ? errorMessage(settled.error) : 'ACP connection closed');
        throw new Error(`${why}; the next run starts a new engine process`);
      }
      if ('exited' in settled) return this.died(settled.exited);
      if ('error' in settled) {
        if (io.signal.aborted) return { outcome: 'cancelled' };
        return { outcome: 'failed', error: errorMessage(settled.error) };
      }
      if (settled.result.stopReason === 'cancelled' || io.signal.aborted) return { outcome: 'cancelled' };
      return { outcome: 'completed' };
    } finally {
      io.signal.removeEventListener('abort', onAbort);
      clearInterval(resend);
      // Requests still waiting (the agent ended its prompt without them) are answered cancelled.
      abortTurn(null);
      this.turnAborted = null;
      this.io = null;
      this.sink = this.betweenTurns;
    }
  }

  /** engine.exited goes into the source lane; throwing makes the lane drop this session and reopen next time. */
  private died(exit: { code: number | null; signal: string | null }): never {
    this.dead = true;
    const stderrTail = this.engine.stderrTail().slice(-2000);
    this.emit(
      harness({
        harness: 'engine.exited',
        code: exit.code,
        signal: exit.signal,
        ...(stderrTail ? { stderrTail } : {}),
      }),
    );
    throw new Error(
      `the engine process exited during the turn (code ${exit.code ?? 'none'}, signal ${exit.signal ?? 'none'})`,
    );
  }

  /** Model through the config option of category "model"; mode through session/set_mode (or a mode option). */
  private async applyChoices(turn: TurnInput): Promise<void> {
    const model = this.configOptions.find((o) => o.category === 'model');
    if (turn.model && model && model.currentValue !== turn.model) {
      const res = await this.conn.agent.request('session/set_config_option', {
        sessionId: this.sessionId,
        configId: String(model.id),
        value: turn.model,
      });
      this.configOptions = listOf((res as unknown as JsonObject).configOptions).filter(isObject);
    }
    if (turn.mode) {
      const modeOption = this.configOptions.find((o) => o.category === 'mode');
      if (this.hasModes)
        await this.conn.agent.request('session/set_mode', { sessionId: this.sessionId, modeId: turn.mode });
      else if (modeOption && modeOption.currentValue !== turn.mode) {
        await this.conn.agent.request('session/set_config_option', {
          sessionId: this.sessionId,
          configId: String(modeOption.id),
          value: turn.mode,
        });
      }
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    this.conn?.close();
    await this.engine.kill(2000);
  }

  /** For tests: the engine process. */
  get process(): OwnedProcess {
    return this.engine;
  }
}
