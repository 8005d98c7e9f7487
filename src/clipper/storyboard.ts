/** One thumbnail of a storyboard: its span on the timeline and the CSS that shows it out of its sprite sheet. */
export interface Tile {
  start: number;
  end: number;
  style: Record<string, string>;
}

const seconds = (t: string) => t.split(':').reduce((sum, n) => sum * 60 + Number(n), 0);

/**
 * The cues of a storyboard WebVTT (the service's `playback.storyboard`): `start --> end`, then a sheet's address
 * relative to the WebVTT with `#xywh=x,y,w,h`. A sheet is 10 thumbnails wide; how many rows it has follows from
 * its `n` (how many it holds). Each tile is drawn at any size by percentages of the sheet.
 */
export function storyboardTiles(vtt: string, base: string): Tile[] {
  const tiles: Tile[] = [];
  for (const m of vtt.matchAll(/^([\d:.]+) --> ([\d:.]+)\r?\n(\S+)#xywh=(\d+),(\d+),(\d+),(\d+)\s*$/gm)) {
    const [, from, to, address, x, y, w, h] = m;
    const url = new URL(address!, base);
    const n = Number(url.searchParams.get('n') ?? 1);
    const columns = 10;
    const rows = Math.max(1, Math.ceil(n / columns));
    const col = Number(x) / Number(w);
    const row = Number(y) / Number(h);
    tiles.push({
      start: seconds(from!),
      end: seconds(to!),
      style: {
        'background-image': `url("${url.href.replace(/"/g, '%22')}")`,
        'background-size': `${columns * 100}% ${rows * 100}%`,
        'background-position': `${(col / (columns - 1)) * 100}% ${rows > 1 ? (row / (rows - 1)) * 100 : 0}%`,
      },
    });
  }
  return tiles;
}
