import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * Where `npm run service` and `npm start` keep the database and the media unless `--data` says otherwise: the
 * user's data directory (XDG), outside the repository, so that nothing serving the repository (a dev server, a
 * static server) can hand out the signing secret, the stream keys or the videos.
 */
export const DEFAULT_DATA = join(
  process.env.XDG_DATA_HOME && isAbsolute(process.env.XDG_DATA_HOME)
    ? process.env.XDG_DATA_HOME
    : join(homedir(), '.local', 'share'),
  'video-uploader',
  'service',
);
