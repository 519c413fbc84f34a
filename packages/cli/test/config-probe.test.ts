import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatFinding, runDoctor } from '../src/commands/doctor';
import { serve } from '../src/commands/serve';
import { readConfigFile, resolveServeConfig } from '../src/config';

// A hostile probe of the config file and the environment: duplicate keys were kept silently (the last one
// won), engine fields of the wrong type and base URLs that are no URL were accepted, and a work folder or
// workspace root that does not exist (or is a file) was taken as it was.
const dir = mkdtempSync(join(tmpdir(), 'agentlane-config-probe-'));
let n = 0;
const text = (content: string) => {
  const path = join(dir, `c${n++}.json`);
  writeFileSync(path, content);
  return path;
};
const file = (content: unknown) => text(JSON.stringify(content));
const builtin = (extra: Record<string, unknown>) => ({
  engines: [{ name: 'main', type: 'builtin', api: 'openai-chat', model: 'm', ...extra }],
});

describe('config file: duplicate keys', () => {
  it('refuses a key given twice in one object, naming its path and line', () => {
    const port = text('{\n  "port": 1,\n  "port": 7433\n}');
    expect(() => readConfigFile(port)).toThrow(`config file ${port}: duplicate key "port" at line 3`);
    const nested = text(
      '{"engines": [{"name": "main", "type": "builtin", "api": "openai-chat", "model": "m",\n "apiKey": "a", "apiKey": "b"}]}',
    );
    expect(() => readConfigFile(nested)).toThrow(
      `config file ${nested}: duplicate key "engines.main.apiKey" at line 2`,
    );
    const deep = text('{"limits": {"requestTimeoutMs": 5, /* c */ "requestTimeoutMs": 6,}}');
    expect(() => readConfigFile(deep)).toThrow('duplicate key "limits.requestTimeoutMs"');
  });

  it('compares keys unescaped, after a BOM, and only within one object', () => {
    const escaped = text('{"port": 1, "p\\u006frt": 2}');
    expect(() => readConfigFile(escaped)).toThrow('duplicate key "port"');
    const bom = text('\uFEFF{"host": "a", "host": "b"}');
    expect(() => readConfigFile(bom)).toThrow('duplicate key "host" at line 1');
    const unicode = text(
      '{"tokens": [{"token": "tok-0123456789abcdef", "threads": ["é", "é"], "name": "ü"}]}',
    );
    expect(readConfigFile(unicode).tokens?.[0]?.name).toBe('ü');
    const apart = file({
      tokens: [
        { token: 'tok-0123456789abcdef', threads: '*', name: 'a' },
        { token: 'tok-fedcba9876543210', threads: '*', name: 'b' },
      ],
    });
    expect(readConfigFile(apart).tokens).toHaveLength(2);
    const quoted = text(
      '{"engines": [{"name": "x", "type": "external", "label": "\\"label\\": 1, \\"label\\""}]}',
    );
    expect(readConfigFile(quoted).engines?.[0]?.name).toBe('x');
  });

  it('refuses two engines of one name when the file is loaded', () => {
    const twice = file({
      engines: [
        { name: 'main', type: 'external' },
        { name: 'main', type: 'external' },
      ],
    });
    expect(() => readConfigFile(twice)).toThrow(
      `config file ${twice}: engines.1 has the name "main" of engines.0: give each engine its own name`,
    );
  });
});

describe('config file: engine fields of the wrong type', () => {
  it('refuses an apiKey that is not a string, never showing it', () => {
    for (const apiKey of [987654321, { key: 'sk-secret-0123456789' }, ['sk-secret-0123456789'], true, null]) {
      const path = file(builtin({ apiKey }));
      let message = '';
      try {
        readConfigFile(path);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toBe(`config file ${path}: engines.main.apiKey must be a string`);
      expect(message).not.toMatch(/987654321|sk-secret/);
    }
    expect(readConfigFile(file(builtin({ apiKey: 'sk-x' }))).engines).toHaveLength(1);
  });

  it('refuses a baseURL that is no http(s) URL with a host', () => {
    for (const baseURL of ['ftp://x', 'not a url', 'http://', 'javascript:alert(1)', '', 7]) {
      const path = file(builtin({ baseURL }));
      expect(() => readConfigFile(path), JSON.stringify(baseURL)).toThrow(
        `config file ${path}: engines.main.baseURL must be an http:// or https:// URL with a host`,
      );
    }
    for (const baseURL of ['http://127.0.0.1:1234/v1', 'https://api.example.com', 'http://u:p@[::1]:8080'])
      expect(readConfigFile(file(builtin({ baseURL }))).engines).toHaveLength(1);
  });

  it('checks the other fields of built-in, OpenCode, ACP, replay and external entries', () => {
    const cases: [unknown, string][] = [
      [builtin({ model: 5 }), 'engines.main.model must be a string'],
      [builtin({ plan: 'yes' }), 'engines.main.plan must be true or false'],
      [builtin({ maxSteps: '8' }), 'engines.main.maxSteps must be a whole number'],
      [
        builtin({ modelTimeouts: { idleMs: '5' } }),
        'engines.main.modelTimeouts.idleMs must be a whole number',
      ],
      [builtin({ workspaceTools: true }), 'engines.main.workspaceTools must be false or an object'],
      [
        builtin({ workspaceTools: { approveWrites: 1 } }),
        'engines.main.workspaceTools.approveWrites must be',
      ],
      [builtin({ tools: [] }), 'engines.main.tools is set by code only, not in a config file'],
      [builtin({ checkpoints: {} }), 'engines.main.checkpoints must be a string'],
      [{ engines: [{ name: 'oc', type: 'opencode', url: 'ftp://x' }] }, 'engines.oc.url must be an http://'],
      [{ engines: [{ name: 'oc', type: 'opencode', env: { K: 1 } }] }, 'engines.oc.env must be an object of'],
      [{ engines: [{ name: 'oc', type: 'opencode', binary: ['x'] }] }, 'engines.oc.binary must be a string'],
      [{ engines: [{ name: 'oc', type: 'opencode', network: 'lan' }] }, 'engines.oc.network must be one of'],
      [{ engines: [{ name: 'a', type: 'acp', command: 'x', modelBaseUrl: 'x' }] }, 'engines.a.modelBaseUrl'],
      [{ engines: [{ name: 'e', type: 'external', label: 3 }] }, 'engines.e.label must be a string'],
      [{ engines: [{ name: 'r', type: 'replay', provider: 'acp', trace: 1 }] }, 'engines.r.trace must be'],
    ];
    for (const [content, message] of cases) {
      const path = file(content);
      expect(() => readConfigFile(path), message).toThrow(`config file ${path}: ${message}`);
    }
    const valid = file({
      engines: [
        builtin({ workspaceTools: false, subagents: { maxDepth: 2 }, checkpoints: 'x.db' }).engines[0],
        { name: 'oc', type: 'opencode', url: 'http://127.0.0.1:4096', env: { K: 'v' }, network: 'open' },
        { name: 'e', type: 'external', label: 'Python', idleTimeoutMs: 120000 },
      ],
    });
    expect(readConfigFile(valid).engines).toHaveLength(3);
  });
});

describe('work folder and workspace root', () => {
  const missing = join(dir, 'missing');
  const aFile = join(dir, 'a-file');
  writeFileSync(aFile, 'x');

  it('serve refuses to start, naming the setting, when one names no folder', async () => {
    const start = (flags: Record<string, string>, env: NodeJS.ProcessEnv) =>
      serve(resolveServeConfig({ port: '0', dataDir: dir, ...flags }, env), () => {});
    await expect(start({}, { AGENTLANE_WORK_DIR: missing })).rejects.toThrow(
      `AGENTLANE_WORK_DIR names ${missing}, which does not exist: create that folder, or point AGENTLANE_WORK_DIR at one`,
    );
    await expect(start({}, { AGENTLANE_WORK_DIR: aFile })).rejects.toThrow(
      `AGENTLANE_WORK_DIR names ${aFile}, which is not a folder`,
    );
    await expect(start({ workspaceRoot: missing }, {})).rejects.toThrow(
      `--workspace-root names ${missing}, which does not exist`,
    );
    await expect(start({}, { AGENTLANE_WORKSPACE_ROOT: aFile })).rejects.toThrow(
      `AGENTLANE_WORKSPACE_ROOT names ${aFile}, which is not a folder`,
    );
    const config = file({ workDir: 'missing' });
    await expect(start({ config }, {})).rejects.toThrow(`workDir in ${config} names ${missing}`);
  });

  it('doctor reports it as a problem with the fix', async () => {
    const findings = await runDoctor(
      { port: '0', dataDir: dir, webRoot: dir, config: file({}) },
      { env: { AGENTLANE_WORK_DIR: missing } },
    );
    expect(findings.map(formatFinding)).toContain(
      `problem  work folder: AGENTLANE_WORK_DIR names ${missing}, which does not exist — fix: create that folder, or point AGENTLANE_WORK_DIR at one`,
    );
  }, 60_000);
});
