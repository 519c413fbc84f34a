import { acpCommand } from './acp';
import { auditCommand } from './audit';
import { checkpointsCommand } from './checkpoints';
import type { CliCommand } from './command';
import { doctorCommand } from './doctor';
import { initCommand } from './init';
import { serveCommand } from './serve';
import { translateCommand } from './translate';

/** Every subcommand, in `--help` order. Add a file next to serve.ts and list it here. */
export const commands: CliCommand[] = [
  serveCommand,
  initCommand,
  doctorCommand,
  checkpointsCommand,
  auditCommand,
  translateCommand,
  acpCommand,
];

export type { CliCommand } from './command';
