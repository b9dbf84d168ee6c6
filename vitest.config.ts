import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

const conditions = ['@resume/source', ...defaultServerConditions];

// One vitest project per workspace package, all sharing this configuration (examples that are
// plain files, such as workflow specs, are not packages).
// examples/library-app is not one: npm installs it from the packed tarballs, and its test
// (packages/reliability/src/packaging/library-app.test.ts) runs its node:test suite there.
const outsideTheWorkspace = new Set(['examples/library-app']);
const projects = ['packages', 'apps', 'examples'].flatMap((group) =>
  readdirSync(group)
    .filter((name) => !outsideTheWorkspace.has(`${group}/${name}`) && existsSync(`${group}/${name}/package.json`))
    .map((name) => {
      const root = `${group}/${name}`;
      const manifest = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { name: string };
      // LangGraph's checkpointer validation suite is written for Jest-style globals (describe, it, expect).
      const globals = manifest.name === '@resume/langgraph';
      return {
        extends: true as const,
        test: { name: manifest.name, root, include: ['src/**/*.test.{ts,tsx}'], globals },
      };
    }),
);

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    projects,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    passWithNoTests: false,
  },
});
