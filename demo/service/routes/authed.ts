import type { ServerResponse } from 'node:http';
import { outOfScope, type Accounts, type Caller, type Scope } from '../domain/accounts.js';
import { sendJson, type Request } from '../http/router.js';

/**
 * A JSON handler that needs a token (spec, Authentication 1): it gets the caller, its result is the 200 body.
 * `scopes` are the token scopes the route serves (domain/accounts.ts); by default keys only. `what` says what
 * the route does, for the 403 of any other scope.
 */
export const authed =
  (accounts: Accounts) =>
  (handler: (caller: Caller, req: Request) => unknown, scopes: readonly Scope[] = ['key'], what = 'use this endpoint') =>
  async (req: Request, res: ServerResponse): Promise<void> => {
    const caller = accounts.authenticate(req.raw.headers.authorization);
    if (!scopes.includes(caller.scope)) throw outOfScope(caller, what);
    sendJson(res, 200, await handler(caller, req));
  };
