import { acpCommand } from './acp.js';
import { auditCommand } from './audit.js';
import { checkpointsCommand } from './checkpoints.js';
import type { CliCommand } from './command.js';
import { doctorCommand } from './doctor.js';
import { initCommand } from './init.js';
import { serveCommand } from './serve.js';
import { translateCommand } from './translate.js';

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

export type { CliCommand } from './command.js';
