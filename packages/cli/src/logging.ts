import { createRequire } from 'node:module';
import { type DestinationStream, type LevelWithSilent, type Logger, pino } from 'pino';
import { CliError } from './cli-error.js';

export const LOG_LEVELS: readonly LevelWithSilent[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

export function parseLogLevel(value: string, source: string): LevelWithSilent {
  if ((LOG_LEVELS as readonly string[]).includes(value)) return value as LevelWithSilent;
  throw new CliError(`${source} must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
}

/**
 * Fields that may hold a credential wherever they appear in a log object. Request logs carry no headers or
 * bodies (Fastify's serializers log method, url and addresses only); this is the net under that.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.apiKey',
  '*.token',
  '*.authorization',
  '*.password',
];

/** pino-pretty, when it is installed and stdout is a terminal; JSON lines otherwise. */
function terminalStream(): DestinationStream | undefined {
  if (!process.stdout.isTTY) return undefined;
  try {
    const pretty = createRequire(import.meta.url)('pino-pretty') as (o: object) => DestinationStream;
    return pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true });
  } catch {
    return undefined;
  }
}

/**
 * The one logger of `agentlane serve`: structured JSON lines (Fastify's pino) with the request id and, on
 * routes that name them, the thread and run ids; pretty on a terminal. At info level it logs requests,
 * lifecycle and problems, never prompts, outputs or credentials.
 */
export function createLogger(level: LevelWithSilent, destination?: DestinationStream): Logger {
  const options = { level, base: { pid: process.pid }, redact: { paths: REDACT, censor: '[redacted]' } };
  const stream = destination ?? terminalStream();
  return stream ? pino(options, stream) : pino(options);
}
