import { MiB } from '../src/api/limits.js';
import type { ServiceOptions } from './app.js';
import { DEFAULT_CONVERSION_LIMITS, type ConversionLimits } from './domain/exports.js';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from './domain/imports.js';
import { DEFAULT_MERGE_WINDOW_MS } from './domain/recordings.js';
import { DEFAULT_OPEN_UPLOAD_CAPS, type OpenUploadCaps } from './domain/open-uploads.js';
import { DEFAULT_QUEUE_CAPS, type QueueCaps } from './domain/videos.js';
import { DEFAULT_RATE_LIMITS, type RateLimits } from './http/api.js';
import { DEFAULT_INGEST_LIMITS, type IngestLimits } from './live/ingest.js';
import { DEFAULT_LEASE_MS } from './jobs.js';
import type { CutStrategy } from './processing/cut.js';
import { DEFAULT_LIMITS, type ProcessingLimits } from './processing/pipeline.js';

/**
 * What a running service holds to: every tunable of ServiceOptions, given or defaulted. The composition root
 * (app.ts) builds its modules from it and the OpenAPI document states it, so a service started with
 * `--merge-window-seconds 120` documents two minutes; the command line (main.ts) takes its defaults from DEFAULTS.
 * Each default is written beside its rule (the module named on each line); this is where they meet.
 */
export interface Settings {
  /** A publisher back within this many ms continues its recording (spec, timed rule 3; domain/recordings.ts). */
  mergeWindowMs: number;
  cutStrategy: CutStrategy;
  /** A PUT whose body sends nothing for this long is cut (storage origin). */
  stallTimeoutMs: number;
  /** A worker renews its jobs' leases; one that died has its jobs run again after this (jobs.ts). */
  jobLeaseMs: number;
  /** Bytes the data volume keeps free (storage/files.ts). */
  minFreeBytes: number;
  /** Stored bytes an organization may have unless its plan says otherwise; null: unlimited. */
  storageQuotaBytes: number | null;
  limits: ProcessingLimits;
  importLimits: ImportLimits;
  queueCaps: QueueCaps;
  ingestLimits: IngestLimits;
  conversionLimits: ConversionLimits;
  openUploadCaps: OpenUploadCaps;
  rateLimits: RateLimits;
}

export const DEFAULTS: Settings = {
  mergeWindowMs: DEFAULT_MERGE_WINDOW_MS,
  cutStrategy: 'whole',
  // Decisions: how long a PUT body may send nothing, and how much of the data volume stays free.
  stallTimeoutMs: 60_000,
  jobLeaseMs: DEFAULT_LEASE_MS,
  minFreeBytes: 256 * MiB,
  storageQuotaBytes: null,
  limits: DEFAULT_LIMITS,
  importLimits: DEFAULT_IMPORT_LIMITS,
  queueCaps: DEFAULT_QUEUE_CAPS,
  ingestLimits: DEFAULT_INGEST_LIMITS,
  conversionLimits: DEFAULT_CONVERSION_LIMITS,
  openUploadCaps: DEFAULT_OPEN_UPLOAD_CAPS,
  rateLimits: DEFAULT_RATE_LIMITS,
};

/** The options a service was started with, each missing one (or missing field of one) its default. */
export function settings(options: ServiceOptions): Settings {
  return {
    mergeWindowMs: options.mergeWindowMs ?? DEFAULTS.mergeWindowMs,
    cutStrategy: options.cutStrategy ?? DEFAULTS.cutStrategy,
    stallTimeoutMs: options.stallTimeoutMs ?? DEFAULTS.stallTimeoutMs,
    jobLeaseMs: options.jobLeaseMs ?? DEFAULTS.jobLeaseMs,
    minFreeBytes: options.minFreeBytes ?? DEFAULTS.minFreeBytes,
    storageQuotaBytes: options.storageQuotaBytes === undefined ? DEFAULTS.storageQuotaBytes : options.storageQuotaBytes,
    limits: { ...DEFAULTS.limits, ...options.limits },
    importLimits: { ...DEFAULTS.importLimits, ...options.importLimits },
    queueCaps: { ...DEFAULTS.queueCaps, ...options.queueCaps },
    ingestLimits: { ...DEFAULTS.ingestLimits, ...options.ingestLimits },
    conversionLimits: { ...DEFAULTS.conversionLimits, ...options.conversionLimits },
    openUploadCaps: { ...DEFAULTS.openUploadCaps, ...options.openUploadCaps },
    rateLimits: { ...DEFAULTS.rateLimits, ...options.rateLimits },
  };
}
