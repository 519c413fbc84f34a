import { escapeUnsafe, maskCredentialQuery } from '@agentlane/contract/safe-text';

/** An error the user can fix; printed as one line without a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A database URL safe to print: the password is replaced, and credential-named query values. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return maskCredentialQuery(u.toString());
  } catch {
    return maskCredentialQuery(url);
  }
}

export { escapeUnsafe };

/**
 * `text` with the userinfo of every URL in it replaced by `***`. Greedy up to the last `@` of the authority,
 * as URL parsers split there, so a password holding an `@` is not half shown. fetch's own errors quote the
 * URL they were given, so this runs over every message, not only over the URLs the CLI formats itself.
 */
export const redactCredentials = (text: string): string =>
  maskCredentialQuery(text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi, '$1***@'));

/** Text from input or from another process, safe to print: no credentials, no terminal controls. */
export const printable = (text: string): string => escapeUnsafe(redactCredentials(text));

/** `text` made printable line by line, so a multi-line text (a stack, commander's usage) keeps its lines. */
export const printableLines = (text: string): string => text.split('\n').map(printable).join('\n');

/**
 * What the CLI prints for an error that ends it: a CliError as one line; anything else is a bug and keeps
 * its stack, made printable as well (an error's message may quote a URL or an argument).
 */
export function formatError(err: unknown): string {
  if (err instanceof CliError) return `agentlane: ${printable(err.message)}`;
  if (err instanceof Error) return printableLines(err.stack ?? `${err.name}: ${err.message}`);
  return `agentlane: ${printable(String(err))}`;
}
