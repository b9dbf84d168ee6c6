// The set-up the CLI's end-to-end tests share: a sandbox (temporary home and workspace) made
// before each test, or once for a file's or a `describe` block's tests, and removed after them.
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createSandbox, type RunOptions, type Sandbox } from './run-cli.js';

/**
 * Registers the sandbox's creation and removal where it is called and returns it: `'each'` test
 * gets a fresh one, or `'all'` the tests around it share one.
 */
export function sandboxFixture(lifetime: 'each' | 'all' = 'each'): Sandbox {
  const [before, after] = lifetime === 'each' ? [beforeEach, afterEach] : [beforeAll, afterAll];
  let current: Sandbox | undefined;
  before(async () => {
    current = await createSandbox();
  });
  after(async () => {
    await current?.remove();
    current = undefined;
  });
  const sandbox = (): Sandbox => {
    if (current === undefined) throw new Error('The sandbox is only set up while its tests run');
    return current;
  };
  return {
    get root() {
      return sandbox().root;
    },
    get home() {
      return sandbox().home;
    },
    get workspace() {
      return sandbox().workspace;
    },
    get env() {
      return sandbox().env;
    },
    run: (args, options) => sandbox().run(args, options),
    start: (args, options) => sandbox().start(args, options),
    json: <T>(args: string[], options?: RunOptions) => sandbox().json<T>(args, options),
    remove: () => sandbox().remove(),
  };
}
