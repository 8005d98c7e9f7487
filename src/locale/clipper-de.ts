import type { ClipperStrings } from './clipper.js';
import de from './de.js';
import { isolate as b } from './isolate.js';

/** <recording-clipper> in German (a first table; the translators' own replaces it). */
const clipperDe: ClipperStrings = {
  invalid: de.invalid,
  expected: de.expected,
  recordingsLabel: 'Aufnahmen dieses Streams',
  noRecordings: 'Noch keine Aufnahmen. Eine Aufnahme erscheint wenige Sekunden nach dem Start des Streams.',
  status: { live: 'Live', stopped: 'Beendet', complete: 'Vollständig' },
  recording: (status, start, length) => `${status}: ${start}, ${length}`,
  exportsCount: (n) => (n === 1 ? '1 Umwandlung' : `${n} Umwandlungen`),
  playerLabel: 'Aufnahme',
  timelineLabel: 'Umzuwandelnder Teil',
  start: 'Anfang',
  end: 'Ende',
  length: (seconds) => `${seconds} s`,
  lengthLabel: 'Länge',
  liveEdge: 'Live-Kante',
  keysHelp:
    'Pfeiltasten bewegen einen Regler um 1 s, Umschalt+Pfeil den Anfang um ein Bild, Bild auf und Bild ab um 10 s; I und O setzen Anfang und Ende an die Wiedergabeposition.',
  timecodeInvalid: (field, text) =>
    `${field}: ${b(text)} ist kein Zeitcode. Schreiben Sie Stunden:Minuten:Sekunden.Millisekunden, etwa 00:01:05.250.`,
  preview: 'Teil in Schleife ansehen',
  convert: 'In Video umwandeln',
  convertWhole: 'Ganze Aufnahme umwandeln',
  wholeWaits:
    'Die ganze Aufnahme lässt sich umwandeln, sobald der Stream beendet ist; ein Teil lässt sich schon jetzt umwandeln.',
  requested: (length, start) => `${length} ab ${start} werden umgewandelt…`,
  entryStatus: { PROCESSING: 'Wird umgewandelt…', EXPORTED: 'Fertig', FAILED: 'Fehlgeschlagen' },
  entry: (start, length, status) => `${start}, ${length}: ${status}`,
  exportsLabel: 'Umwandlungen dieser Aufnahme',
  failed: (reason) => `Die Umwandlung ist fehlgeschlagen${reason ? `: ${b(reason)}` : '.'}`,
  refused: (reason) => `Der Videodienst hat die Umwandlung abgelehnt: ${b(reason)}`,
  resultLabel: 'Das neue Video',
  videosLabel: 'Videos aus diesem Stream',
  noVideos: 'Noch keine.',
  videoStatus: {
    waiting: 'Wartet auf seine Datei',
    processing: 'Wird verarbeitet',
    ready: 'Fertig',
    failed: 'Fehlgeschlagen',
  },
  video: (length, status) => `${length}, ${status}`,
  play: (length) => `Das Video von ${length} abspielen`,
  deleted: 'Diese Aufnahme wurde gelöscht (Aufnahmen werden 3 Tage aufbewahrt) und kann nicht mehr geschnitten werden.',
  unreachable: 'Der Videodienst ist gerade nicht erreichbar; die Liste wird aktualisiert, sobald er es wieder ist.',
  unplayable: 'Dieser Browser kann kein HLS-Video abspielen.',
};

export default clipperDe;
