/**
 * A grouped horizontal bar chart as a standalone SVG: one group per link, one bar per contender, MB/s written
 * at each bar's end. Each link has its own scale (its fastest bar is full width), so the lead on a slow link
 * reads as well as on a fast one. Plain SVG text, so GitHub and any browser draw it and a diff reads it.
 */
const COLOURS = ['#1269cf', '#5b9be6', '#9cc3f2', '#8c8c8c', '#d9822b', '#7a5195'];
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

export function barChart(title: string, groups: { link: string; rows: { label: string; mbps?: number }[] }[]): string {
  const labelWidth = 500; // room for labels of about 80 characters, at about 6 px a character
  const barArea = 420;
  const bar = 16;
  const gap = 4;
  const parts: string[] = [];
  let y = 44;
  for (const group of groups) {
    const max = Math.max(...group.rows.map((r) => r.mbps ?? 0));
    parts.push(`<text x="10" y="${y}" font-weight="bold">${escape(group.link)} loss</text>`);
    y += 10;
    group.rows.forEach((row, i) => {
      const width = row.mbps ? Math.max(1, (row.mbps / max) * barArea) : 0;
      const value = row.mbps ? `${row.mbps.toFixed(2)} MB/s` : 'did not finish';
      parts.push(
        `<text x="${labelWidth - 8}" y="${y + bar - 4}" text-anchor="end">${escape(row.label)}</text>`,
        `<rect x="${labelWidth}" y="${y}" width="${width.toFixed(1)}" height="${bar}" fill="${COLOURS[i % COLOURS.length]}"/>`,
        `<text x="${(labelWidth + width + 6).toFixed(1)}" y="${y + bar - 4}">${value}</text>`,
      );
      y += bar + gap;
    });
    y += 22;
  }
  const width = labelWidth + barArea + 110;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" viewBox="0 0 ${width} ${y}" font-family="system-ui, sans-serif" font-size="12">
<rect width="100%" height="100%" fill="#fff"/>
<text x="10" y="22" font-size="15" font-weight="bold">${escape(title)} (each link to its own scale)</text>
${parts.join('\n')}
</svg>
`;
}
