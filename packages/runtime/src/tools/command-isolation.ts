import { execFile } from 'node:child_process';
import { constants } from 'node:os';

/**
 * Why commands run in a PID namespace of their own: a command runs as the server's user, so without one it
 * can read `/proc/<pid>/environ` of the server (its `$PPID`) and of every process that started it, where the
 * provider keys the server was given still are (taking them out of `process.env` does not change that
 * block), and print them in any encoding no redaction recognises (base64, reversed: a probe did both). In a
 * new PID namespace with its own `/proc` the command sees only its own processes.
 *
 * What it does not hide: files the server's user may read (a config file or `.env` holding a key). Keys are
 * best given to the server in its environment (docs/operations.md).
 */
export type CommandIsolation =
  | { kind: 'pid-namespace'; prefix: readonly string[] }
  | { kind: 'none'; reason: string };

/** util-linux `unshare`: a new PID and mount namespace with /proc mounted for it; the tree dies with unshare. */
const PID_NS = ['--pid', '--fork', '--mount-proc', '--kill-child'];

/** The user the command is inside its user namespace when the server runs as root (nobody). */
const NOBODY = 65534;

/**
 * Always in a user namespace, as a user other than root in it: unshare mounts the new /proc while it still
 * holds its capabilities, and the command, started as a non-root user of the namespace, holds none. Without
 * one, a command of a server running as root keeps CAP_SYS_ADMIN and simply unmounts the new /proc, which
 * shows the machine's again (a probe did: `umount -l /proc`); mapped to root in the namespace it could too. A
 * server of another user maps that user to itself; root is mapped to nobody, so the command's files are
 * still root's out here, but it has no privilege over anything root owns beyond a file's owner bits.
 */
function candidates(): (readonly string[])[] {
  // --map-user/--map-group (util-linux 2.36+), not --map-current-user (2.38+): more machines have them.
  const uid = process.getuid?.() ?? NOBODY;
  const gid = process.getgid?.() ?? NOBODY;
  const [inUid, inGid] = uid === 0 ? [NOBODY, NOBODY] : [uid, gid];
  return [['unshare', '--user', '--map-user', String(inUid), '--map-group', String(inGid), ...PID_NS]];
}

/**
 * PID 1 of the namespace: the kernel delivers to it from outside only the signals it handles, and when it
 * exits every process left in the namespace is killed. So it runs the command as its child, passes on the
 * signals the server sends the command's group (timeout, cancel), and exits with the command's status.
 * `wait` returns early when a trapped signal arrives: it is repeated while the child is there.
 */
const INIT = [
  'sh -c "$1" & c=$!',
  'for s in TERM INT HUP QUIT USR1 USR2; do trap "kill -$s $c 2>/dev/null" $s; done',
  'while :; do wait $c; st=$?; kill -0 $c 2>/dev/null || break; done',
  'exit $st',
].join('\n');

const PROBE = `test "$$" = 1 && grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status`;

let detected: Promise<CommandIsolation> | undefined;

/**
 * The isolation this machine allows, tried once per process (starting `unshare` for nothing takes ~5–10 ms,
 * off the event loop: the workspace tools ask when they are made, so the first command finds it decided).
 * Without one, the process warns once on stderr: commands then run as they are.
 */
export function commandIsolation(): Promise<CommandIsolation> {
  detected ??= detect().then((isolation) => {
    if (isolation.kind === 'none')
      process.emitWarning(
        `commands run without a PID namespace of their own (${isolation.reason}): a command can read the environment of the processes of its user, the server's keys included`,
        { code: 'AGENTLANE_COMMAND_ISOLATION' },
      );
    return isolation;
  });
  return detected;
}

/** Runs the probe under one candidate: its error, or undefined when the namespace is what it should be. */
function tryCandidate([bin, ...args]: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    // PID 1 of a new namespace, holding no capability (what a command there could unmount /proc with).
    execFile(
      bin as string,
      [...args, 'sh', '-c', PROBE],
      { timeout: 5_000, encoding: 'utf8' },
      (error, _stdout, stderr) => {
        if (!error) return resolve(undefined);
        const exit = typeof error.code === 'number' ? `exit ${error.code}` : error.message;
        resolve(stderr.trim() || exit);
      },
    );
  });
}

async function detect(): Promise<CommandIsolation> {
  if (process.platform !== 'linux')
    return { kind: 'none', reason: `${process.platform} has no PID namespaces` };
  const errors: string[] = [];
  for (const candidate of candidates()) {
    const error = await tryCandidate(candidate);
    if (error === undefined) return { kind: 'pid-namespace', prefix: candidate };
    errors.push(error);
  }
  return { kind: 'none', reason: `unshare refused: ${errors[errors.length - 1] ?? 'not found'}` };
}

/**
 * Whether a command shares the server's network (`shared`), or has a network namespace of its own with no
 * interface up, loopback included (`none`): then it cannot reach the internet, nor the server's own API on
 * 127.0.0.1, which has no authentication in loopback mode (an approved command could approve its next one).
 */
export type CommandNetwork = 'shared' | 'none';

/**
 * argv of `sh -c command` in the isolation (or as it is without one); undefined when `network: 'none'` is
 * asked for and there is no namespace to give it (the caller refuses the command rather than run it online).
 */
export function isolatedShell(
  command: string,
  isolation: CommandIsolation,
  network: CommandNetwork = 'shared',
): [string, string[]] | undefined {
  if (isolation.kind === 'none') return network === 'none' ? undefined : ['sh', ['-c', command]];
  const [bin, ...args] = isolation.prefix;
  const net = network === 'none' ? ['--net'] : [];
  return [bin as string, [...args, ...net, 'sh', '-c', INIT, 'agentlane-init', command]];
}

/**
 * What the command's end means to the caller. Through PID 1 a command killed by a signal is the exit status
 * 128 + n, as shells report it: when the server stopped the command (timeout, cancel) that is reported as the
 * signal, as it is without isolation, where the shell itself dies of it.
 */
export function commandExit(
  code: number | null,
  signal: NodeJS.Signals | null,
  stoppedByServer: boolean,
  isolation: CommandIsolation,
): { code: number | null; signal: NodeJS.Signals | null } {
  if (isolation.kind === 'none' || !stoppedByServer || code === null || code <= 128) return { code, signal };
  const name = (Object.keys(constants.signals) as NodeJS.Signals[]).find(
    (s) => constants.signals[s] === code - 128,
  );
  return name ? { code: null, signal: name } : { code, signal };
}
