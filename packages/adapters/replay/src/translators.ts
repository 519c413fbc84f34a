import { acpTranslator } from '@agentlane/adapter-acp/translate';
import { openCodeTranslator } from '@agentlane/adapter-opencode/translate';
import type { JsonValue } from '@agentlane/contract';
import type { Translator } from '@agentlane/engine-kit';

/** The real translators a trace can be played through, by the provider name a recording declares. */
export const translators: Record<string, Translator<JsonValue>> = {
  opencode: openCodeTranslator as unknown as Translator<JsonValue>,
  acp: acpTranslator as unknown as Translator<JsonValue>,
};

export function translatorFor(provider: string): Translator<JsonValue> {
  const translator = translators[provider];
  if (!translator) {
    throw new Error(`no translator for "${provider}"; known: ${Object.keys(translators).join(', ')}`);
  }
  return translator;
}
