import * as C from '../../src/api/contract.js';
import { Type } from 'typebox';
import type { Accounts } from '../domain/accounts.js';
import type { Usage } from '../domain/usage.js';
import type { Webhooks } from '../domain/webhooks.js';
import { MAX_WEBHOOKS } from '../../src/api/limits.js';
import { op, params, ref, type Api } from '../http/api.js';
import { WEB_PORTS } from '../net/outbound.js';

/** Decisions: webhook registration (spec, Events 3: "not shown") and the hosting-minute usage. */
export function accountRoutes(
  app: Api,
  { accounts, webhooks, usage }: { accounts: Accounts; webhooks: Webhooks; usage: Usage },
): void {
  app.post(
    '/webhooks',
    op(accounts, {
      operationId: 'createWebhook',
      summary: 'Register a webhook endpoint',
      description:
        `Decision (registration: not shown). \`events\` default to all: ${C.WEBHOOK_EVENTS.join(', ')}. ` +
        'The answer carries the signing `secret`, shown only here. `url` must be http(s) without credentials and reach no ' +
        'internal address (loopback, private, shared, link-local, unique-local, multicast, unspecified, reserved, IPv4-mapped ' +
        'or -embedding IPv6, `localhost`), in any spelling, nor a name resolving to one (the answer does not say which address), ' +
        `and use port ${WEB_PORTS.join(' or ')}: 400 naming why. It is checked again at each delivery, which connects to the address checked ` +
        'and follows no redirect. The service flag `--allow-private-network` lifts the address and port rules for local ' +
        `development, \`--allow-any-port\` the port rule alone. At most ${MAX_WEBHOOKS} webhooks per ` +
        'organization and environment.',
      body: C.CreateWebhookRequest,
      ok: ref(C.Webhook),
      errors: ['too_many_webhooks'],
    }),
    (req) => webhooks.create(req.caller, req.body),
  );

  app.get(
    '/webhooks',
    op(accounts, {
      operationId: 'listWebhooks',
      summary: 'List webhook endpoints (without secrets)',
      ok: Type.Array(ref(C.Webhook)),
    }),
    (req) => webhooks.list(req.caller),
  );

  app.delete(
    '/webhooks/:id',
    op(accounts, {
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook endpoint',
      description: 'Its pending deliveries are dropped.',
      params: params('id'),
      ok: ref(C.Success),
      errors: ['not_found'],
    }),
    (req) => webhooks.remove(req.caller, req.params.id),
  );

  app.get(
    '/usage',
    op(accounts, {
      operationId: 'getUsage',
      summary: 'Hosting minutes and plan of the organization',
      description:
        'Decision. Quota and plan end are set by the account owner (`npm run service -- plan`), not through the API.',
      ok: ref(C.Usage),
    }),
    (req) => usage.report(req.caller),
  );
}
