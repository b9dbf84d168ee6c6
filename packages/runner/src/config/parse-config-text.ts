// Parses and validates one config file's text: YAML first (errors name the file and the
// line), then secret-looking keys, then the config schema, then each provider's section by
// the schema its factory declares (errors name the key). Loaded only when a config file
// exists (see resolve-config.ts).

import { ConfigError } from '@resume/core/spec';
import type { z } from 'zod';
import { referencesEnvironmentOnly } from '../mcp/mcp-server-config.js';
import { builtinProviders } from '../providers/builtin-providers.js';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import { issueMessage, keyInPath } from '../workflow/issue-path.js';
import { readYamlData } from '../workflow/yaml-error.js';
import { type ConfigFile, configFileSchema, MOVED_CONFIG_KEYS, SECRET_KEY_PATTERN } from './config-schema.js';

/**
 * Parses config YAML; errors name the file, the key and the line where YAML knows it.
 * `providers.<name>` must name a provider of `providers` and have the shape it declares.
 */
export function parseConfigText(
  text: string,
  file: string,
  providers: ProviderRegistry = builtinProviders,
): ConfigFile {
  const raw =
    readYamlData(text, {
      file,
      key: null,
      syntaxFix: 'Fix the YAML syntax, or move the file away to use the defaults.',
      aliasFix: 'Fix the YAML anchors and aliases (&name, *name), or move the file away to use the defaults.',
      describeSyntaxError: (error) => {
        const line = error.linePos?.[0]?.line;
        return {
          file: line ? `${file}:${line}` : file,
          problem: `not valid YAML (${error.message.split(/ at line|\n/)[0]})`,
        };
      },
    }) ?? {};
  const secretKey = findSecretKey(raw, []);
  if (secretKey)
    throw new ConfigError({
      file,
      key: secretKey,
      problem: 'secrets do not belong in config files (they could be committed or journaled)',
      fix: secretKey.startsWith('mcp.')
        ? `Keep the secret in the environment and name it here: \`Authorization: "Bearer $\{GITHUB_TOKEN}"\`.`
        : 'Remove the key and set OPENAI_API_KEY or ANTHROPIC_API_KEY in the environment instead.',
    });
  for (const moved of MOVED_CONFIG_KEYS) {
    if (valueAt(raw, moved.from) === undefined) continue;
    const [section, ...rest] = moved.to.split('.');
    const value = JSON.stringify(valueAt(raw, moved.from));
    throw new ConfigError({
      file,
      key: moved.from.join('.'),
      problem: `this key is now ${moved.to} (${moved.what})`,
      fix: `Write it as ${rest.length > 0 ? `${section}: { ${rest.join('.')}: ${value} }` : `${section}: ${value}`} and remove ${moved.from.join('.')}.`,
    });
  }
  const result = configFileSchema.safeParse(raw);
  if (!result.success) throw configErrorFromIssues(file, result.error.issues);
  return {
    ...result.data,
    ...(result.data.providers ? { providers: providerSettings(file, result.data.providers, providers) } : {}),
  };
}

/** Each provider's section, validated by the schema its factory declares. */
function providerSettings(
  file: string,
  sections: Record<string, Record<string, unknown>>,
  providers: ProviderRegistry,
): Record<string, Record<string, unknown>> {
  const settings: Record<string, Record<string, unknown>> = {};
  for (const [name, section] of Object.entries(sections)) {
    if (!providers.has(name))
      throw new ConfigError({
        file,
        key: `providers.${name}`,
        problem: `no provider is registered as "${name}" (providers: ${providers.names().join(', ')})`,
        fix: 'Name a registered provider, or remove the section.',
      });
    const schema = providers.get(name).configSchema;
    if (!schema) {
      const [first] = Object.keys(section);
      if (first === undefined) continue;
      throw new ConfigError({
        file,
        key: `providers.${name}.${first}`,
        problem: `provider "${name}" takes no settings`,
      });
    }
    const result = schema.safeParse(section);
    if (!result.success)
      throw configErrorFromIssues(
        file,
        result.error.issues.map((issue) => ({ ...issue, path: ['providers', name, ...issue.path] })),
      );
    settings[name] = result.data as Record<string, unknown>;
  }
  return settings;
}

function configErrorFromIssues(file: string, issues: z.core.$ZodIssue[]): ConfigError {
  const issue = issues[0];
  if (!issue) return new ConfigError({ file, key: null, problem: 'invalid config' });
  // An unknown key is named where it stands (the first of them, when there are several).
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, ...issue.keys.slice(0, 1)] : issue.path;
  const problem = issueMessage(issue);
  return new ConfigError({
    file,
    key: path.length > 0 ? path.map(keyInPath).join('.') : null,
    problem,
    fix: 'See docs/config.md for every key and its type.',
  });
}

function valueAt(value: unknown, keys: readonly string[]): unknown {
  let node = value;
  for (const key of keys) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

// `seen`: YAML aliases can make the document cyclic (`&a [*a]`); each node is visited once.
function findSecretKey(value: unknown, trail: string[], seen = new WeakSet<object>()): string | null {
  if (typeof value !== 'object' || value === null || seen.has(value)) return null;
  seen.add(value);
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findSecretKey(item, [...trail, String(index)], seen);
      if (found) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    // An MCP server's header may name a secret kept in the environment (`Bearer ${TOKEN}`).
    if (SECRET_KEY_PATTERN.test(key) && !referencesEnvironmentOnly(item)) return [...trail, key].join('.');
    const found = findSecretKey(item, [...trail, key], seen);
    if (found) return found;
  }
  return null;
}
