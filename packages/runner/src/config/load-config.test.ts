import path from 'node:path';
import { ConfigError } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../exit-codes/exit-codes.js';
import { loadConfig, loadConfigOnDemand } from './load-config.js';

const userHome = '/users/ada';
const workspace = '/projects/app';

function filesystem(files: Record<string, string>) {
  return (file: string) => files[file] ?? null;
}

describe('loadConfig', () => {
  it('uses ~/.conclave and the defaults when there is no config file', () => {
    const loaded = loadConfig({ cwd: workspace, userHome, env: {}, readFile: filesystem({}) });
    expect(loaded.config.home).toBe(path.join(userHome, '.conclave'));
    expect(loaded.config.retention.minKeep).toBe(10);
    expect(loaded.sources['retention.minKeep']).toBe('default');
    expect(loaded.files).toEqual([]);
  });

  it('lets the workspace file override the home file, and says where each value came from', () => {
    const home = '/data/conclave';
    const loaded = loadConfig({
      cwd: workspace,
      userHome,
      env: { CONCLAVE_HOME: home },
      readFile: filesystem({
        [`${home}/config.yaml`]: 'retention:\n  maxAgeDays: 90\n  maxSessions: 500\ndiscussion:\n  maxRounds: 4\n',
        [`${workspace}/.conclave.yaml`]: 'retention:\n  maxAgeDays: 30\nagents:\n  - name: critic\n    model: gpt-4o\n',
      }),
    });
    expect(loaded.config.home).toBe(home);
    expect(loaded.sources.home).toBe('$CONCLAVE_HOME');
    expect(loaded.config.retention).toMatchObject({ maxAgeDays: 30, maxSessions: 500 });
    expect(loaded.sources['retention.maxAgeDays']).toBe(`${workspace}/.conclave.yaml`);
    expect(loaded.sources['retention.maxSessions']).toBe(`${home}/config.yaml`);
    expect(loaded.config.discussion.maxRounds).toBe(4);
    expect(loaded.config.agents).toEqual([{ name: 'critic', model: 'gpt-4o' }]);
    expect(loaded.files).toEqual([`${home}/config.yaml`, `${workspace}/.conclave.yaml`]);
  });

  it('reads the recovery limit from resume.maxRecoveries and names it when the old checkpoint key is used', () => {
    const defaults = loadConfig({ cwd: workspace, userHome, env: {}, readFile: filesystem({}) });
    expect(defaults.config.resume.maxRecoveries).toBe(10);
    const set = loadConfig({
      cwd: workspace,
      userHome,
      env: {},
      readFile: filesystem({ [`${workspace}/.conclave.yaml`]: 'resume:\n  maxRecoveries: 3\n' }),
    });
    expect(set.config.resume.maxRecoveries).toBe(3);
    expect(set.sources['resume.maxRecoveries']).toBe(`${workspace}/.conclave.yaml`);
    let error: unknown;
    try {
      loadConfig({
        cwd: workspace,
        userHome,
        env: {},
        readFile: filesystem({ [`${workspace}/.conclave.yaml`]: 'checkpoint:\n  maxRecoveries: 3\n' }),
      });
    } catch (caught) {
      error = caught;
    }
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as ConfigError).message).toContain(`${workspace}/.conclave.yaml`);
    expect((error as ConfigError).message).toContain('checkpoint.maxRecoveries');
    expect((error as ConfigError).message).toContain('this key is now resume.maxRecoveries');
    expect((error as ConfigError).hint).toContain('resume: { maxRecoveries: 3 }');
  });

  it('gives --home and --store precedence over the environment and files', () => {
    const loaded = loadConfig({
      cwd: workspace,
      userHome,
      env: { CONCLAVE_HOME: '/elsewhere', CONCLAVE_STORE_URL: 'postgres://env/db' },
      home: '~/custom',
      storeUrl: 'postgres://flag/db',
      readFile: filesystem({ [`${workspace}/.conclave.yaml`]: 'home: ./.sessions\n' }),
    });
    expect(loaded.config.home).toBe('/users/ada/custom');
    expect(loaded.config.store.url).toBe('postgres://flag/db');
    expect(loaded.sources['store.url']).toBe('--store');
  });

  it('expands a leading ~ in a store path from --store, the environment or a config file, as it does for the home', () => {
    const load = (options: { storeUrl?: string; env?: Record<string, string>; files?: Record<string, string> }) =>
      loadConfig({
        cwd: workspace,
        userHome,
        env: options.env ?? {},
        ...(options.storeUrl ? { storeUrl: options.storeUrl } : {}),
        readFile: filesystem(options.files ?? {}),
      }).config.store.url;
    expect(load({ storeUrl: '~/x' })).toBe('/users/ada/x');
    expect(load({ storeUrl: '~' })).toBe('/users/ada');
    expect(load({ env: { CONCLAVE_STORE_URL: '~/from-env' } })).toBe('/users/ada/from-env');
    expect(load({ files: { [`${workspace}/.conclave.yaml`]: 'store:\n  url: ~/from-file\n' } })).toBe(
      '/users/ada/from-file',
    );
    // Only a leading ~ names the user's home: anything else is as written.
    expect(load({ storeUrl: 'data/~x' })).toBe('data/~x');
    expect(load({ storeUrl: '~other/x' })).toBe('~other/x');
    expect(load({ storeUrl: 'postgres://host/~db' })).toBe('postgres://host/~db');
  });

  it('lets a workspace move the data home relative to itself', () => {
    const loaded = loadConfig({
      cwd: workspace,
      userHome,
      env: {},
      readFile: filesystem({ [`${workspace}/.conclave.yaml`]: 'home: ./.sessions\n' }),
    });
    expect(loaded.config.home).toBe(`${workspace}/.sessions`);
  });

  it('names the file and the key of an invalid value', () => {
    const read = filesystem({ [`${workspace}/.conclave.yaml`]: 'retention:\n  maxAgeDays: soon\n' });
    expect(() => loadConfig({ cwd: workspace, userHome, env: {}, readFile: read })).toThrowError(
      /\/projects\/app\/\.conclave\.yaml at retention\.maxAgeDays/,
    );
  });

  it('reads space limits written as sizes, and names the file, the key and the form of one it cannot read', () => {
    const read = filesystem({
      [`${workspace}/.conclave.yaml`]: 'limits:\n  maxHomeBytes: 20GB\n  maxSessionBytes: 500 MiB\n',
    });
    const loaded = loadConfig({ cwd: workspace, userHome, env: {}, readFile: read });
    expect(loaded.config.limits.maxHomeBytes).toBe(20 * 1024 ** 3);
    expect(loaded.config.limits.maxSessionBytes).toBe(500 * 1024 ** 2);
    expect(loadConfig({ cwd: workspace, userHome, env: {}, readFile: filesystem({}) }).config.limits).toMatchObject({
      maxHomeBytes: null,
      maxSessionBytes: null,
    });
    for (const value of ['20 gigs', '-5GB', '0', '1.5XB']) {
      const bad = filesystem({ [`${workspace}/.conclave.yaml`]: `limits:\n  maxHomeBytes: ${value}\n` });
      try {
        loadConfig({ cwd: workspace, userHome, env: {}, readFile: bad });
        expect.unreachable(value);
      } catch (error) {
        expect(ConfigError.isInstance(error), value).toBe(true);
        expect((error as ConfigError).key).toBe('limits.maxHomeBytes');
        expect((error as Error).message).toContain(`${workspace}/.conclave.yaml`);
        expect((error as Error).message).toMatch(/500MB, 20GB/);
        expect(exitCodeFor(error)).toBe(64);
      }
    }
  });

  it('names a misspelt key instead of ignoring it', () => {
    const read = filesystem({ [`${workspace}/.conclave.yaml`]: 'retention:\n  maxAgeDay: 3\n' });
    try {
      loadConfig({ cwd: workspace, userHome, env: {}, readFile: read });
      expect.unreachable();
    } catch (error) {
      expect(ConfigError.isInstance(error)).toBe(true);
      expect((error as ConfigError).key).toBe('retention.maxAgeDay');
      expect(exitCodeFor(error)).toBe(64);
    }
  });

  it('refuses API keys in config files and points to the environment', () => {
    const read = filesystem({ [`${workspace}/.conclave.yaml`]: 'providers:\n  openai:\n    apiKey: sk-abc\n' });
    expect(() => loadConfig({ cwd: workspace, userHome, env: {}, readFile: read })).toThrowError(
      /providers\.openai\.apiKey: secrets do not belong/,
    );
  });

  /** `${NAME}`, as a config file names an environment variable. */
  const reference = (name: string) => `$\{${name}}`;

  it('reads MCP servers (a command, or a url with headers naming environment variables)', () => {
    const read = filesystem({
      [`${workspace}/.conclave.yaml`]: [
        'mcp:',
        '  maxOutputBytes: 4096',
        '  servers:',
        `    files: { command: npx, args: [-y, files-server], env: { ROOT: "${reference('HOME')}/data" } }`,
        '    github:',
        '      url: https://mcp.example.com/mcp',
        `      headers: { Authorization: "Bearer ${reference('GITHUB_TOKEN')}" }`,
        '',
      ].join('\n'),
    });
    const { config } = loadConfig({ cwd: workspace, userHome, env: {}, readFile: read });
    expect(config.mcp).toEqual({
      maxOutputBytes: 4096,
      servers: {
        files: { command: 'npx', args: ['-y', 'files-server'], env: { ROOT: `${reference('HOME')}/data` } },
        github: {
          url: 'https://mcp.example.com/mcp',
          headers: { Authorization: `Bearer ${reference('GITHUB_TOKEN')}` },
        },
      },
    });
  });

  it('refuses an MCP header holding a secret itself, and says how to name it from the environment', () => {
    const read = filesystem({
      [`${workspace}/.conclave.yaml`]:
        'mcp:\n  servers:\n    github:\n      url: https://mcp.example.com/mcp\n      headers: { Authorization: "Bearer ghp_abc123" }\n',
    });
    expect(() => loadConfig({ cwd: workspace, userHome, env: {}, readFile: read })).toThrowError(
      expect.objectContaining({
        message: expect.stringContaining('mcp.servers.github.headers.Authorization: secrets do not belong'),
        hint: expect.stringContaining(`Authorization: "Bearer ${reference('GITHUB_TOKEN')}"`),
      }),
    );
  });

  it('refuses an MCP server with neither a command nor a url, and a server name tools cannot be named after', () => {
    const neither = filesystem({ [`${workspace}/.conclave.yaml`]: 'mcp:\n  servers:\n    files: { args: [x] }\n' });
    expect(() => loadConfig({ cwd: workspace, userHome, env: {}, readFile: neither })).toThrowError(
      /mcp\.servers\.files[\s\S]*either `command`[\s\S]*or `url`/,
    );
    const badName = filesystem({
      [`${workspace}/.conclave.yaml`]: 'mcp:\n  servers:\n    my__files: { command: x }\n',
    });
    expect(() => loadConfig({ cwd: workspace, userHome, env: {}, readFile: badName })).toThrowError(/<server>__<tool>/);
  });

  it('refuses a provider base URL with credentials, naming the file and the key', () => {
    const read = filesystem({
      [`${workspace}/.conclave.yaml`]: 'providers:\n  openai:\n    baseUrl: https://me:hunter22@llm.internal/v1\n',
    });
    try {
      loadConfig({ cwd: workspace, userHome, env: {}, readFile: read });
      expect.unreachable();
    } catch (error) {
      expect(ConfigError.isInstance(error)).toBe(true);
      expect((error as ConfigError).key).toBe('providers.openai.baseUrl');
      expect((error as ConfigError).message).toContain('must not carry a user or password');
      expect((error as ConfigError).message).not.toContain('hunter22');
    }
  });

  it("keeps each provider's settings under its name, in the shape its factory declares", () => {
    const read = filesystem({
      [`${workspace}/.conclave.yaml`]:
        'provider: openai\nproviders:\n  openai:\n    baseUrl: http://localhost:11434/v1\n    model: llama3.1\n  scripted:\n    script: turns.yaml\n',
    });
    const loaded = loadConfig({ cwd: workspace, userHome, env: {}, readFile: read });
    expect(loaded.config.provider).toBe('openai');
    expect(loaded.config.providers).toEqual({
      openai: { baseUrl: 'http://localhost:11434/v1', model: 'llama3.1' },
      scripted: { script: 'turns.yaml' },
    });
    expect(loaded.sources['providers.openai.model']).toBe(`${workspace}/.conclave.yaml`);
  });

  it('names the key a provider does not take, and a section no provider is registered under', () => {
    const misspelt = filesystem({ [`${workspace}/.conclave.yaml`]: 'providers:\n  anthropic:\n    baseURL: x\n' });
    expect(() => loadConfig({ cwd: workspace, userHome, env: {}, readFile: misspelt })).toThrowError(
      /providers\.anthropic\.baseURL: unknown key "baseURL"/,
    );
    const unknown = filesystem({ [`${workspace}/.conclave.yaml`]: 'providers:\n  toy:\n    model: toy-small\n' });
    expect(() => loadConfig({ cwd: workspace, userHome, env: {}, readFile: unknown })).toThrowError(
      /providers\.toy: no provider is registered as "toy" \(providers: openai, anthropic, scripted\)/,
    );
  });

  it('points a file that still sets providers.default to the provider key, with the value to write', () => {
    const file = `${workspace}/.conclave.yaml`;
    const read = filesystem({ [file]: 'providers:\n  default: anthropic\n' });
    try {
      loadConfig({ cwd: workspace, userHome, env: {}, readFile: read });
      expect.unreachable();
    } catch (error) {
      expect(ConfigError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ file, key: 'providers.default' });
      expect((error as ConfigError).message).toContain('this key is now provider');
      expect((error as ConfigError).hint).toBe('Write it as provider: "anthropic" and remove providers.default.');
    }
  });

  it('refuses agent names that are not plain names', () => {
    for (const name of ['../../x', '.hidden', 'a/b', '']) {
      const read = filesystem({ [`${workspace}/.conclave.yaml`]: `agents:\n  - name: ${JSON.stringify(name)}\n` });
      try {
        loadConfig({ cwd: workspace, userHome, env: {}, readFile: read });
        expect.unreachable(name);
      } catch (error) {
        expect(ConfigError.isInstance(error), name).toBe(true);
        expect((error as ConfigError).key).toBe('agents.0.name');
      }
    }
    const read = filesystem({ [`${workspace}/.conclave.yaml`]: 'agents:\n  - name: Code Reviewer 2\n' });
    expect(loadConfig({ cwd: workspace, userHome, env: {}, readFile: read }).config.agents?.[0]?.name).toBe(
      'Code Reviewer 2',
    );
  });

  it('reports broken YAML with its line', () => {
    const read = filesystem({ [`${workspace}/.conclave.yaml`]: 'retention:\n  maxAgeDays: [1,\n' });
    expect(() => loadConfig({ cwd: workspace, userHome, env: {}, readFile: read })).toThrowError(
      /\.conclave\.yaml:\d+: not valid YAML/,
    );
  });
});

describe('loadConfigOnDemand', () => {
  const countingFilesystem = (files: Record<string, string>) => {
    const reads: string[] = [];
    const read = (file: string) => {
      reads.push(file);
      return files[file] ?? null;
    };
    return { read, reads };
  };

  it('gives the defaults without any config file, reading each candidate once', async () => {
    const { read, reads } = countingFilesystem({});
    const loaded = await loadConfigOnDemand({ cwd: workspace, userHome, env: {}, readFile: read });
    expect(loaded).toEqual(loadConfig({ cwd: workspace, userHome, env: {}, readFile: filesystem({}) }));
    expect(reads).toEqual([`${workspace}/.conclave.yaml`, `${userHome}/.conclave/config.yaml`]);
  });

  it('gives what loadConfig gives when files exist, the data home moved by the workspace file included', async () => {
    const files = {
      [`${workspace}/.conclave.yaml`]: 'home: ../data\nretention:\n  maxAgeDays: 30\n',
      '/projects/data/config.yaml': 'retention:\n  maxSessions: 500\n',
    };
    const { read, reads } = countingFilesystem(files);
    const loaded = await loadConfigOnDemand({ cwd: workspace, userHome, env: {}, readFile: read });
    expect(loaded).toEqual(loadConfig({ cwd: workspace, userHome, env: {}, readFile: filesystem(files) }));
    expect(loaded.config.home).toBe('/projects/data');
    expect(loaded.config.retention).toMatchObject({ maxAgeDays: 30, maxSessions: 500 });
    expect(new Set(reads).size).toBe(reads.length);
  });

  it('refuses an invalid file with the same error as loadConfig', async () => {
    const read = filesystem({ [`${userHome}/.conclave/config.yaml`]: 'retention:\n  maxAgeDays: soon\n' });
    await expect(loadConfigOnDemand({ cwd: workspace, userHome, env: {}, readFile: read })).rejects.toThrowError(
      /retention\.maxAgeDays/,
    );
    await expect(loadConfigOnDemand({ cwd: workspace, userHome, env: {}, readFile: read })).rejects.toBeInstanceOf(
      ConfigError,
    );
  });
});
