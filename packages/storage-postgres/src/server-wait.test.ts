// A server that stops answering (frozen, or a network that drops packets without closing
// the connection) is waited for out loud: the store says whom it waits for and for what,
// keeps saying how long, and says when the server answered again.
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerWait } from './server-wait.js';
import { freezableProxy } from './testing/freezable-proxy.js';
import { announceSkip } from './testing/postgres-cluster.js';
import { postgres, useTestDatabase } from './testing/test-database.js';

const skipped = announceSkip(postgres);

describe.skipIf(!postgres.available)(`PostgreSQL server that stops answering ${skipped}`, () => {
  const database = useTestDatabase();
  const closers: Array<() => void> = [];
  afterEach(() => {
    for (const close of closers.splice(0)) close();
  });

  it('says whom it waits for and for what, keeps saying how long, and goes on when the server answers', async () => {
    const proxy = await freezableProxy(new URL(database.url));
    closers.push(proxy.close);
    const through = new URL(database.url);
    through.port = String(proxy.port);
    const waits: ServerWait[] = [];
    let heard: () => void = () => {};
    const store = database.openStore({
      connectionString: through.toString(),
      waitNoticeMs: 20,
      onWaiting: (wait) => {
        waits.push(wait);
        if (waits.filter((each) => !each.answered).length >= 2) heard();
      },
    });
    await store.migrate();
    waits.splice(0); // a slow start-up may have been reported already

    proxy.freeze();
    const twoNotices = new Promise<void>((resolve) => {
      heard = resolve;
    });
    const listing = store.list();
    await twoNotices;
    proxy.thaw();
    expect(await listing).toEqual([]);

    const [first, second] = waits;
    expect(first).toMatchObject({ host: `127.0.0.1:${proxy.port}`, action: 'list sessions', answered: false });
    expect(second?.waitedMs).toBeGreaterThan(first?.waitedMs ?? 0);
    expect(waits.at(-1)).toMatchObject({ action: 'list sessions', answered: true });
  });
});
