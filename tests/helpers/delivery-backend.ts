/**
 * A stand-in delivery backend (what DELIVERY_WEBHOOK_URL points at): counts each message it is
 * given by its Idempotency-Key header, the message id. Outbox delivery is at least once, so a
 * message may come twice (delivered, then its sender killed before recording it); the key is
 * what lets a real backend send it once.
 */
import { createServer } from 'node:http';
import { freePort } from '../../runtime/index.ts';

export interface DeliveryBackend {
  url: string;
  /** Message id -> how many times it was received. */
  receipts: Map<string, number>;
  close(): Promise<void>;
}

/** `delayMs`: how long each delivery takes, so that kills land while the outbox is at work. */
export async function startDeliveryBackend(delayMs = 2): Promise<DeliveryBackend> {
  const receipts = new Map<string, number>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = String(req.headers['idempotency-key']);
      receipts.set(key, (receipts.get(key) ?? 0) + 1);
      setTimeout(() => res.writeHead(200).end(), delayMs);
    });
  });
  const port = await freePort('127.0.0.1');
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/deliver`,
    receipts,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
