/** Variables worth passing from the parent: how to find programs and render text, nothing else. */
const PASS_THROUGH = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'SHELL', 'TERM'];

/** The parent's own proxy settings, kept for an engine allowed out (a company proxy stays in the path). */
const PARENT_PROXY = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy'];

export interface SandboxEnvOptions {
  /** HOME and XDG variables (from createEngineHome). */
  homeEnv: Record<string, string>;
  /**
   * The deny-all proxy URL; every proxy variable points there. Without it (an engine whose entry says
   * `network: "open"`), outbound traffic goes out directly or through the parent's own proxy variables.
   */
  proxyUrl?: string;
  /** Engine-specific variables (base URLs, dummy keys, telemetry switches); they win over the defaults. */
  extra?: Record<string, string>;
}

/**
 * The environment an engine process runs with. It is built from scratch rather than inherited, so the
 * harness's own secrets (database URLs, tokens) never reach an engine. Outbound HTTP(S) goes to the
 * deny-all sink; loopback (the fake model server, OpenCode's own port) stays direct.
 */
export function sandboxEnv(options: SandboxEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of PASS_THROUGH) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  Object.assign(env, options.homeEnv);
  if (options.proxyUrl === undefined) {
    for (const key of PARENT_PROXY) {
      const value = process.env[key];
      if (value !== undefined) env[key] = value;
    }
    Object.assign(env, { DO_NOT_TRACK: '1', NO_UPDATE_NOTIFIER: '1' }, options.extra ?? {});
    return env;
  }
  const noProxy = '127.0.0.1,localhost,::1';
  Object.assign(env, {
    HTTP_PROXY: options.proxyUrl,
    HTTPS_PROXY: options.proxyUrl,
    ALL_PROXY: options.proxyUrl,
    http_proxy: options.proxyUrl,
    https_proxy: options.proxyUrl,
    all_proxy: options.proxyUrl,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    // Background `npm install`s (OpenCode plugins) hit the sink instead of the registry.
    npm_config_registry: `${options.proxyUrl}/`,
    DO_NOT_TRACK: '1',
    NO_UPDATE_NOTIFIER: '1',
  });
  Object.assign(env, options.extra ?? {});
  return env;
}
