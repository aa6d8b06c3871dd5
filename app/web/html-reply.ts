/** Sends a page the web app rendered, as HTML in UTF-8 (the status is the reply's: `sendHtml(reply.code(404), page)`). */
import type { FastifyReply } from 'fastify';

export const sendHtml = (reply: FastifyReply, body: string): FastifyReply => reply.type('text/html; charset=utf-8').send(body);
