// Test support: a TCP proxy in front of a PostgreSQL server whose traffic can be held (the
// server seems frozen, as under `kill -STOP`, or behind a network that drops packets) and
// let through again, without closing any connection.
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy to the server whose traffic can be held (the server seems frozen) and let through again. */
export interface FreezableProxy {
  port: number;
  /** Holds all traffic from now on, both ways: the server seems frozen. */
  freeze(): void;
  /** Delivers what was held and lets traffic through again. */
  thaw(): void;
  /**
   * Round trips so far: the times a client spoke after the server answered it (or first), left
   * out those whose first message matches `except` (the text of a statement, say).
   */
  roundTrips(except?: RegExp): number;
  close(): void;
}

export async function freezableProxy(target: URL): Promise<FreezableProxy> {
  let frozen = false;
  const turns: string[] = [];
  const held: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const forward = (from: Socket, to: Socket, turn: { clientSpoke: boolean }, fromClient: boolean) =>
    from.on('data', (chunk) => {
      if (fromClient && !turn.clientSpoke) turns.push(chunk.toString('latin1'));
      turn.clientSpoke = fromClient;
      if (frozen) held.push(() => to.write(chunk));
      else to.write(chunk);
    });
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    const turn = { clientSpoke: false };
    forward(client, upstream, turn, true);
    forward(upstream, client, turn, false);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return {
    port: address.port,
    freeze: () => {
      frozen = true;
    },
    roundTrips: (except) => turns.filter((text) => !except?.test(text)).length,
    thaw: () => {
      frozen = false;
      for (const send of held.splice(0)) send();
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}
