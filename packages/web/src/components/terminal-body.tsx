import Convert from 'ansi-to-html';
import { useMemo } from 'react';

const converter = new Convert({ escapeXML: true, newline: false, stream: false });

/** Terminal output with its ANSI colours; escapeXML keeps the HTML inert. */
export function TerminalBody({ output }: { output: string }) {
  const html = useMemo(() => converter.toHtml(output), [output]);
  // biome-ignore lint/security/noDangerouslySetInnerHtml: ansi-to-html escapes the text (escapeXML) and emits only spans
  return <pre className="terminal" dangerouslySetInnerHTML={{ __html: html }} />;
}
