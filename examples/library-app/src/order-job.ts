// A durable order job: load an order, price it, charge the card (unsafe: never repeated
// without consent), ship it. Written once, run again unchanged after any crash: what the
// journal recorded replays, the rest runs.
import type { Session } from '@resume/core';
import type { SideEffects } from './side-effects.js';

export interface Order {
  id: string;
  items: Array<{ sku: string; quantity: number; unitCents: number }>;
}

export interface OrderResult {
  order: Order;
  totalCents: number;
  charge: { chargedCents: number; reference: string };
  shipment: { carrier: string; parcels: number };
  summary: string;
}

/** Work that takes a moment, like a network call. */
const work = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function orderJob(session: Session, effects: SideEffects): Promise<OrderResult> {
  const order = await session.step('load-order', async (): Promise<Order> => {
    await work(4);
    effects.ran('load-order');
    return {
      id: 'A-17',
      items: [
        { sku: 'pen', quantity: 3, unitCents: 250 },
        { sku: 'ink', quantity: 2, unitCents: 1200 },
      ],
    };
  });
  session.addMessage({ role: 'user', content: `Order ${order.id}: ${order.items.length} lines` });
  await session.checkpoint('loaded');

  const totalCents = await session.step('price', async () => {
    await work(4);
    effects.ran('price');
    return order.items.reduce((sum, item) => sum + item.quantity * item.unitCents, 0);
  });
  session.record({ type: 'data-set', key: 'total', value: totalCents });
  session.addMessage({ role: 'assistant', content: `Total ${(totalCents / 100).toFixed(2)}` });
  await session.checkpoint('priced');

  const charge = await session.step(
    'charge',
    async ({ idempotencyKey }) => {
      await work(4);
      // A real payment API would get `idempotencyKey` and deduplicate on it.
      effects.ran('charge', idempotencyKey);
      return { chargedCents: totalCents, reference: `ch-${order.id}` };
    },
    {
      safety: 'unsafe',
      // Annotated: TypeScript widens a literal returned by an async arrow to `string` otherwise.
      onUncertain: async (): Promise<'rerun'> => {
        // This job's operator agreed up front: the processor deduplicates on the key.
        effects.consented('charge');
        return 'rerun';
      },
    },
  );
  session.addMessage({ role: 'assistant', content: `Charged ${charge.reference}` });
  await session.checkpoint('charged');

  const shipment = await session.step('ship', async () => {
    await work(4);
    effects.ran('ship');
    return { carrier: 'post', parcels: Math.ceil(order.items.length / 2) };
  });
  const summary = `${order.id}: ${totalCents} cents, ${charge.reference}, ${shipment.parcels} parcel(s)`;
  session.addMessage({ role: 'assistant', content: summary });
  await session.checkpoint('shipped');
  return { order, totalCents, charge, shipment, summary };
}
