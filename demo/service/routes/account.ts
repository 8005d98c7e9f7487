import type { Accounts } from '../domain/accounts.js';
import type { Usage } from '../domain/usage.js';
import type { Webhooks } from '../domain/webhooks.js';
import { readJson, type Router } from '../http/router.js';
import { authed as authedBy } from './authed.js';

/** Decisions: webhook registration (spec, Events 3: "not shown") and the hosting-minute usage. */
export function accountRoutes(router: Router, accounts: Accounts, webhooks: Webhooks, usage: Usage): void {
  const authed = authedBy(accounts);
  router.add('POST', '/webhooks', authed(async (caller, req) => webhooks.create(caller, await readJson(req))));
  router.add('GET', '/webhooks', authed((caller) => webhooks.list(caller)));
  router.add('DELETE', '/webhooks/{id}', authed((caller, req) => {
    webhooks.remove(caller, req.params.id!);
    return { success: true };
  }));
  router.add('GET', '/usage', authed((caller) => usage.report(caller)));
}
