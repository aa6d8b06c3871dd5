/**
 * POST /webhooks/inbound: the delivery backend reports a lead's reply. Authenticated with the
 * shared secret INBOUND_WEBHOOK_SECRET (`Authorization: Bearer <secret>`); absent when unset.
 * Body: { "conversation_id": "...", "text": "..." } or { "in_reply_to": "<our message id>", "text": "..." }.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { NotFoundError } from './domain/errors.ts';
import type { MessageStore } from './store/messages.ts';

interface InboundBody {
  conversation_id?: string;
  in_reply_to?: string;
  text: string;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function inboundWebhook(app: FastifyInstance, options: { secret: string; messages: MessageStore }): Promise<void> {
  // The secret is checked before the body is read, so that strangers learn nothing about its shape.
  app.addHook('onRequest', async (req, reply) => {
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('Bearer ') || !sameSecret(header.slice(7), options.secret)) {
      return reply.code(401).send({ error: 'The inbound webhook needs Authorization: Bearer <INBOUND_WEBHOOK_SECRET>' });
    }
  });
  app.post<{ Body: InboundBody }>(
    '/webhooks/inbound',
    {
      schema: {
        body: {
          type: 'object',
          required: ['text'],
          additionalProperties: false,
          properties: {
            conversation_id: { type: 'string', minLength: 1, pattern: '^[^\\u0000]*$' },
            in_reply_to: { type: 'string', minLength: 1, pattern: '^[^\\u0000]*$' },
            text: { type: 'string', minLength: 1, maxLength: 20000, pattern: '^[^\\u0000]*$' },
          },
          oneOf: [{ required: ['conversation_id'] }, { required: ['in_reply_to'] }],
        },
      },
    },
    async (req, reply) => {
      const { conversation_id, in_reply_to, text } = req.body;
      try {
        const target = conversation_id !== undefined ? { conversationId: conversation_id } : { inReplyTo: in_reply_to! };
        const message = await options.messages.recordInbound(target, text);
        return reply.code(201).send({ message });
      } catch (err) {
        if (err instanceof NotFoundError) return reply.code(404).send({ error: `No conversation matches ${conversation_id ?? `message ${in_reply_to}`}` });
        throw err;
      }
    },
  );
}
