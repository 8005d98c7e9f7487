/**
 * The one line for a port that is already taken: which port, and the flag that chooses another. `flags` maps each
 * command-line flag to the port it asked for. Undefined when `err` is not about a taken port.
 */
export function portInUse(err: unknown, flags: Record<string, number>): string | undefined {
  const e = err as { code?: string; port?: number; message?: string } | undefined;
  const port = e?.code === 'EADDRINUSE' ? e.port : Number(/Port (\d+) is already in use/.exec(e?.message ?? '')?.[1]);
  if (!port) return undefined;
  const flag = Object.entries(flags).find(([, asked]) => asked === port)?.[0];
  return `port ${port} is already in use (another npm start or npm run service, perhaps)${flag ? `; stop that, or choose another port with --${flag}` : ''}.`;
}
