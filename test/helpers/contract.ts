import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * Answers cannot drift from the document: every JSON answer a service test receives from a service's API origin
 * is validated against that service's own `/openapi.json` (the operation's documented answer for that status).
 * An answer made up by an injected fault (header `x-injected-fault`) is the one exception.
 */
interface Contract {
  operations: { method: string; template: string; pattern: RegExp; params: number }[];
  ajv: Ajv2020;
  compiled: Map<string, ValidateFunction>;
}

const contracts = new Map<string, Promise<Contract>>();
const realFetch = globalThis.fetch;

async function load(origin: string): Promise<Contract> {
  const doc = (await (await realFetch(`${origin}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...doc, $id: 'doc' });
  const operations = Object.entries(doc.paths).flatMap(([template, ops]) =>
    Object.keys(ops).map((method) => ({
      method: method.toUpperCase(),
      template,
      pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`),
      params: (template.match(/\{/g) ?? []).length,
    })),
  );
  return { operations, ajv, compiled: new Map() };
}

/** Throws, naming the operation and what differs, when `body` is not what the document promises for this answer. */
export async function checkAnswer(
  origin: string,
  method: string,
  path: string,
  status: number,
  body: unknown,
): Promise<void> {
  if (!contracts.has(origin)) contracts.set(origin, load(origin));
  const contract = await contracts.get(origin)!;
  const operation = contract.operations
    .filter((o) => o.method === method && o.pattern.test(path))
    .sort((a, b) => a.params - b.params)[0];
  // No operation: the answer must be the one error shape (404 no endpoint, 405, a preflight's 204).
  const pointer = operation
    ? `doc#/paths/${operation.template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`
    : 'doc#/components/schemas/Error';
  if (operation && !(await hasPointer(contract, pointer))) {
    throw new Error(
      `${method} ${path} answered ${status}, which the document does not list for ${method} ${operation.template}: ${JSON.stringify(body).slice(0, 300)}`,
    );
  }
  let validate = contract.compiled.get(pointer);
  if (!validate) contract.compiled.set(pointer, (validate = contract.ajv.compile({ $ref: pointer })));
  if (!validate(body)) {
    throw new Error(
      `${method} ${path} answered ${status} with a body that is not what the document says (${operation ? `${method} ${operation.template}` : 'Error'}): ` +
        `${contract.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
    );
  }
}

async function hasPointer(contract: Contract, pointer: string): Promise<boolean> {
  try {
    return Boolean(contract.ajv.getSchema(pointer) ?? contract.ajv.compile({ $ref: pointer }));
  } catch {
    return false;
  }
}

/** API origins whose answers are checked; the services the helpers start add theirs. */
export const checkedOrigins = new Set<string>();

/** `fetch`, checking every JSON answer from a checked origin. Installed for every service test by test/helpers/service.ts. */
export async function checkedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const res = await realFetch(input, init);
  const url = new URL(input instanceof Request ? input.url : input);
  if (!checkedOrigins.has(url.origin) || res.headers.has('x-injected-fault')) return res;
  if (!/^application\/json\b/.test(res.headers.get('content-type') ?? '')) return res;
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  const text = await res.clone().text();
  await checkAnswer(url.origin, method, url.pathname, res.status, JSON.parse(text));
  return res;
}

globalThis.fetch = checkedFetch as typeof fetch;
