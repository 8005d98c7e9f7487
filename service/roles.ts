/**
 * The roles a process of the service can take (`--role`, docs/scale.md "Roles"): `all` is the one process that
 * does everything (the default, `npm start`); the others split it so that each part scales on its own, all sharing
 * one database and one store.
 */
export const ROLES = ['all', 'api', 'worker', 'ingest'] as const;
export type Role = (typeof ROLES)[number];

/**
 * What a process of each role runs. `api`: the HTTP API, and the storage origin while the media are on this
 * machine's disk. `jobs`: the job runner and the sweeper (the timed rules; one process of the fleet at a time, by a
 * lease). `ingest`: RTMP and the recorder. A role without the API answers /healthz, /readyz and /metrics on its
 * `--port`.
 */
export const RUNS: Record<Role, { api: boolean; jobs: boolean; ingest: boolean }> = {
  all: { api: true, jobs: true, ingest: true },
  api: { api: true, jobs: false, ingest: false },
  worker: { api: false, jobs: true, ingest: false },
  ingest: { api: false, jobs: false, ingest: true },
};
