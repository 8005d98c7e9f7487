import type { ClipperStrings } from './clipper.js';
import { isolate as b } from './isolate.js';
import uploader from './nl.js';

const nl: ClipperStrings = {
  invalid: uploader.invalid,
  expected: uploader.expected,
  recordingsLabel: 'Opnamen van deze stream',
  noRecordings: 'Nog geen opnamen. Een opname verschijnt een paar seconden nadat de stream is begonnen.',
  status: { live: 'Live', stopped: 'Gestopt', complete: 'Voltooid' },
  recording: (status, start, length, exports) => `${status}: ${start}, ${length} · ${exports}`,
  exportsCount: (n) => (n === 1 ? '1 export' : `${n} exports`),
  playerLabel: 'Opname',
  timelineLabel: 'Deel om te converteren',
  start: 'Begin',
  end: 'Einde',
  length: (seconds) => `${seconds} s`,
  lengthLabel: 'Lengte',
  liveEdge: 'livepositie',
  keysHelp:
    'De pijltjestoetsen verplaatsen een schuifknop 1 s, Shift+pijltjestoetsen het begin één frame, Page Up en Page Down 10 s; I en O zetten begin en einde op de afspeelkop.',
  timecodeInvalid: (field, text) =>
    `${field}: ${b(text)} is geen tijdcode. Gebruik uren:minuten:seconden.milliseconden, zoals 00:01:05.250.`,
  preview: 'Deel herhaald afspelen',
  convert: 'Converteren naar video',
  convertWhole: 'Hele opname converteren',
  wholeWaits: 'De hele opname kan worden geconverteerd zodra de stream is afgelopen; een deel kan dat nu al.',
  requested: (length, start) => `${length} vanaf ${start} wordt geconverteerd…`,
  entryStatus: { PROCESSING: 'Wordt geconverteerd…', EXPORTED: 'Klaar', FAILED: 'Mislukt' },
  entry: (start, length, status) => `${start}, ${length}: ${status}`,
  exportsLabel: 'Conversies van deze opname',
  failed: (reason) => `De conversie is mislukt${reason ? `: ${b(reason)}` : '.'}`,
  refused: (reason) => `De videodienst heeft de conversie geweigerd: ${b(reason)}`,
  resultLabel: 'De nieuwe video',
  videosLabel: 'Video’s gemaakt van deze stream',
  noVideos: 'Nog geen.',
  videoStatus: { waiting: 'Wacht op het bestand', processing: 'Wordt verwerkt', ready: 'Klaar', failed: 'Mislukt' },
  video: (length, status) => `${length}, ${status}`,
  play: (length, made) => `Video van ${length}, gemaakt op ${made}, afspelen`,
  deleted: 'Deze opname is verwijderd (opnamen worden 3 dagen bewaard) en kan dus niet meer worden geknipt.',
  unreachable: 'De videodienst is nu niet bereikbaar; de lijst wordt bijgewerkt zodra dat weer kan.',
  unplayable: uploader.previewUnsupported,
};
export default nl;
