import type { ServerResponse } from 'node:http';
import type { Accounts, Caller } from '../domain/accounts.js';
import { sendJson, type Request } from '../http/router.js';

/** A JSON handler that needs a token (spec, Authentication 1): it gets the caller, its result is the 200 body. */
export const authed =
  (accounts: Accounts) =>
  (handler: (caller: Caller, req: Request) => unknown) =>
  async (req: Request, res: ServerResponse): Promise<void> => {
    const caller = accounts.authenticate(req.raw.headers.authorization);
    sendJson(res, 200, await handler(caller, req));
  };
