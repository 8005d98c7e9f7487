import type { ClipperStrings } from './clipper.js';
import uploader from './de.js';
import { isolate as b } from './isolate.js';

const de: ClipperStrings = {
  invalid: uploader.invalid,
  expected: uploader.expected,
  recordingsLabel: 'Aufnahmen dieses Streams',
  noRecordings: 'Noch keine Aufnahmen. Eine Aufnahme erscheint wenige Sekunden nach dem Start des Streams.',
  status: { live: 'Live', stopped: 'Gestoppt', complete: 'Abgeschlossen' },
  recording: (status, start, length, exports) => `${status}: ${start}, ${length} · ${exports}`,
  exportsCount: (n) => (n === 1 ? '1 Export' : `${n} Exporte`),
  playerLabel: 'Aufnahme',
  timelineLabel: 'Abschnitt zum Umwandeln',
  start: 'Anfang',
  end: 'Ende',
  length: (seconds) => `${seconds} s`,
  lengthLabel: 'Länge',
  liveEdge: 'Live-Position',
  keysHelp:
    'Pfeiltasten verschieben einen Regler um 1 s, Umschalt+Pfeiltasten den Anfang um ein Einzelbild, Bild↑ und Bild↓ um 10 s; I und O setzen Anfang und Ende auf die Abspielposition.',
  timecodeInvalid: (field, text) =>
    `${field}: ${b(text)} ist kein Timecode. Verwenden Sie Stunden:Minuten:Sekunden.Millisekunden, z. B. 00:01:05.250.`,
  preview: 'Abschnitt in Schleife abspielen',
  convert: 'In Video umwandeln',
  convertWhole: 'Gesamte Aufnahme umwandeln',
  wholeWaits:
    'Die gesamte Aufnahme lässt sich umwandeln, sobald der Stream beendet ist; ein Abschnitt lässt sich schon jetzt umwandeln.',
  requested: (length, start) => `${length} ab ${start} werden umgewandelt…`,
  entryStatus: { PROCESSING: 'Wird umgewandelt…', EXPORTED: 'Bereit', FAILED: 'Fehlgeschlagen' },
  entry: (start, length, status) => `${start}, ${length}: ${status}`,
  exportsLabel: 'Umwandlungen dieser Aufnahme',
  failed: (reason) => `Die Umwandlung ist fehlgeschlagen${reason ? `: ${b(reason)}` : '.'}`,
  refused: (reason) => `Der Videodienst hat die Umwandlung abgelehnt: ${b(reason)}`,
  resultLabel: 'Das neue Video',
  videosLabel: 'Aus diesem Stream erstellte Videos',
  noVideos: 'Noch keine.',
  videoStatus: {
    waiting: 'Wartet auf die Datei',
    processing: 'Wird verarbeitet',
    ready: 'Bereit',
    failed: 'Fehlgeschlagen',
  },
  video: (length, status) => `${length}, ${status}`,
  play: (length, made) => `Video (${length}) vom ${made} abspielen`,
  deleted:
    'Diese Aufnahme wurde gelöscht (Aufnahmen werden 3 Tage aufbewahrt) und kann daher nicht mehr geschnitten werden.',
  unreachable:
    'Der Videodienst ist gerade nicht erreichbar; die Liste wird aktualisiert, sobald er wieder erreichbar ist.',
  unplayable: uploader.previewUnsupported,
};
export default de;
