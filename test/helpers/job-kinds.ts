/**
 * The job kind the queue's own tests run (test/unit/jobs.test.ts, test/unit/two-processes.test.ts and the worker
 * process it starts): a job named for the order it started in, held for a while when `holdMs` says so.
 */
declare module '../../service/jobs.js' {
  interface JobPayloads {
    work: { name: string; holdMs?: number };
  }
}

export {};
