/** The test-control surface under /__emulator (stand-ins/openapi/README.md, test/support/emulator.ts). Not part of the Open API. */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { UnreadableBody } from '../body.js';
import { formatDateTime, parseDateTime } from '../clock.js';
import { ClientPatch, clientProblem, parseConfig } from '../config.js';
import { ConfigError } from '../errors.js';
import { FaultInput } from '../faults.js';
import { dropExternalKey } from '../members.js';
import type { EmulatorState } from '../state.js';

export const ADMIN_PREFIX = '/__emulator';

const ClockInput = z.union([
  z.strictObject({
    // The refine gives the message (with its path); the transform only runs on text it accepted.
    now: z
      .string()
      .refine((s) => parseDateTime(s, 'second') !== undefined, 'must be "Y-m-d H:i:s"')
      .transform((s) => parseDateTime(s, 'second') ?? Number.NaN),
  }),
  z.strictObject({ advance_seconds: z.number().finite() }),
]);
const HandoverInput = z.strictObject({
  member_id: z.string().min(1),
  ttl_seconds: z.number().int().nonnegative().default(600),
});
const MemberPatch = z.strictObject({ device_change: z.boolean() });

function fail(reply: FastifyReply, status: number, error: string): FastifyReply {
  return reply.code(status).send({ error });
}

function parse<T>(schema: z.ZodType<T>, body: unknown, reply: FastifyReply): T | undefined {
  if (body instanceof UnreadableBody) {
    fail(reply, 400, body.message);
    return undefined;
  }
  const r = schema.safeParse(body ?? {});
  if (!r.success) {
    fail(reply, 400, z.prettifyError(r.error));
    return undefined;
  }
  return r.data;
}

export function registerAdminRoutes(app: FastifyInstance, state: EmulatorState): void {
  const clock = () => ({ now: formatDateTime(state.clock.now()) });

  app.post(`${ADMIN_PREFIX}/reset`, async (req, reply) => {
    if (req.body instanceof UnreadableBody) return fail(reply, 400, req.body.message);
    try {
      state.reset(req.body === undefined || req.body === null ? state.initialConfig : parseConfig(req.body));
    } catch (e) {
      if (e instanceof ConfigError) return fail(reply, 400, e.message);
      throw e;
    }
    return reply.code(204).send();
  });

  app.get(`${ADMIN_PREFIX}/clock`, async () => clock());
  app.post(`${ADMIN_PREFIX}/clock`, async (req, reply) => {
    const input = parse(ClockInput, req.body, reply);
    if (!input) return reply;
    state.clock.set('now' in input ? input.now : state.clock.now() + input.advance_seconds * 1000);
    return clock();
  });

  app.patch<{ Params: { clientId: string } }>(`${ADMIN_PREFIX}/clients/:clientId`, async (req, reply) => {
    const client = state.clients.get(req.params.clientId);
    if (!client) return fail(reply, 404, `unknown client ${req.params.clientId}`);
    // The client's own client_id may come along (a whole client object minus members); it cannot change.
    const { client_id: sameId, ...fields } = (req.body ?? {}) as Record<string, unknown>;
    if (sameId !== undefined && sameId !== req.params.clientId) return fail(reply, 400, 'client_id cannot be changed');
    const patch = parse(ClientPatch, fields, reply);
    if (!patch) return reply;
    const next = { ...client.config, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
    const problem = clientProblem(next);
    if (problem) return fail(reply, 400, problem);
    for (const key of client.config.external_keys) if (!next.external_keys.includes(key)) dropExternalKey(client, key);
    client.config = next;
    return client.config;
  });

  app.post<{ Params: { clientId: string } }>(`${ADMIN_PREFIX}/clients/:clientId/handover-tokens`, async (req, reply) => {
    const client = state.clients.get(req.params.clientId);
    if (!client) return fail(reply, 404, `unknown client ${req.params.clientId}`);
    const input = parse(HandoverInput, req.body, reply);
    if (!input) return reply;
    if (!client.members.has(input.member_id)) return fail(reply, 404, `unknown member ${input.member_id}`);
    const token = randomBytes(24).toString('hex');
    client.handoverTokens.set(token, { memberId: input.member_id, expiresAt: state.clock.now() + input.ttl_seconds * 1000, used: false });
    return reply.code(201).send({ token });
  });

  app.patch<{ Params: { clientId: string; id: string } }>(`${ADMIN_PREFIX}/clients/:clientId/members/:id`, async (req, reply) => {
    const client = state.clients.get(req.params.clientId);
    if (!client) return fail(reply, 404, `unknown client ${req.params.clientId}`);
    const member = client.members.get(req.params.id);
    if (!member) return fail(reply, 404, `unknown member ${req.params.id}`);
    const input = parse(MemberPatch, req.body, reply);
    if (!input) return reply;
    member.device_change = input.device_change;
    return { id: member.id, device_change: member.device_change };
  });

  app.post(`${ADMIN_PREFIX}/faults`, async (req, reply) => {
    const input = parse(FaultInput, req.body, reply);
    if (!input) return reply;
    return reply.code(201).send({ id: state.faults.add(input) });
  });
  app.delete(`${ADMIN_PREFIX}/faults`, async (_req, reply) => {
    state.faults.clear();
    return reply.code(204).send();
  });

  app.get(`${ADMIN_PREFIX}/stats`, async () => state.stats.snapshot());
}
