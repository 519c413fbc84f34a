import type { Command } from 'commander';

/**
 * One `agentlane` subcommand. Each lives in its own file in this folder and is listed once in index.ts;
 * `register` adds it (with its options and `--help`) to the program.
 */
export interface CliCommand {
  name: string;
  register(program: Command): void;
}
