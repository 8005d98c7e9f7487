import type { Strings } from './en.js';
import { isolate as b } from './isolate.js';

const de: Strings = {
  dashboardNote: 'Videodateien: MP4, MOV, MKV, WebM, AVI, MPEG-TS und weitere.',
  processing: (name) => `${b(name)} wird verarbeitet…`,
  ready: (name) => `${b(name)} ist bereit.`,
  failed: (name, reason) => `${b(name)} konnte nicht verarbeitet werden${reason ? `: ${b(reason)}` : '.'}`,
  stillProcessing: (name) => `${b(name)} wird noch verarbeitet und ist später bereit.`,
  previewLabel: (name) => `Vorschau von ${b(name)}`,
  previewUnsupported: 'Dieser Browser kann kein HLS-Video abspielen.',
  previewsLabel: 'Hochgeladene Videos',
  emptyFile: (name) => `${b(name)} ist leer (0 Bytes) und wurde nicht hinzugefügt.`,
  tooManyChunks: (name, chunks, gb) =>
    `${b(name)} ist zu groß: Es bräuchte mehr als ${chunks.toLocaleString('de')} Teile unter ${gb} GB.`,
  sessionExpired: (name) =>
    `Die Upload-Sitzung von ${b(name)} ist abgelaufen, bevor alles gesendet war. Der Upload beginnt von vorn.`,
  singleRestarts: (name) => `${b(name)} wird in einem Stück gesendet: Fortsetzen beginnt wieder von vorn.`,
  notSameFile: (name) =>
    `${b(name)} ist nicht die Datei, deren Upload unterbrochen wurde: gleicher Name und gleiche Größe, anderer Inhalt. Entfernen Sie sie und fügen Sie das Original hinzu.`,
  addAgain: (name) =>
    `Der Upload von ${b(name)} wurde unterbrochen. Fügen Sie dieselbe Datei erneut hinzu, um dort fortzufahren, wo er stehen blieb.`,
  completedAfterInterruption: (name) =>
    `Der unterbrochene Upload von ${b(name)} hatte alle Teile: Er ist jetzt abgeschlossen.`,
  discardedExpired: (name) =>
    `Der unterbrochene Upload von ${b(name)} ist abgelaufen. Fügen Sie die Datei erneut hinzu, um sie von vorn hochzuladen.`,
  linkSource: 'Link',
  linkLabel: 'Adresse einer Videodatei',
  linkSubmit: 'Importieren',
  linkRefused: (url) =>
    `${b(url)} kann nicht importiert werden: Geben Sie die http(s)-Adresse einer Videodatei im Internet an.`,
  tooLong: (name, length, limit) => `${b(name)} ist ${length} lang; angenommen werden Videos bis ${limit}.`,
  tooShort: (name, length, limit) => `${b(name)} ist ${length} lang; angenommen werden Videos ab ${limit}.`,
  resolutionTooHigh: (name, resolution, limit) =>
    `${b(name)} hat ${resolution}; angenommen werden Videos bis ${limit}.`,
  resolutionTooLow: (name, resolution, limit) => `${b(name)} hat ${resolution}; angenommen werden Videos ab ${limit}.`,
  unreadable: (name) =>
    `${b(name)} konnte nicht als Video gelesen werden, daher lassen sich Länge und Auflösung nicht prüfen; die Datei wurde nicht hinzugefügt.`,
  leaveWhileUploading: 'Ein Upload läuft noch. Seite trotzdem verlassen?',
  invalid: (attribute, value, expected) => `${attribute}="${value}" ist ungültig: ${expected}.`,
  expected: {
    sources: 'Geben Sie eine kommagetrennte Liste aus files, link, camera und screen an',
    duration: 'Geben Sie eine Länge wie 90s, 10m, 1h30m oder 01:30:00 an',
    resolution: 'Geben Sie eine Auflösung wie 1080p oder 3840x2160 an',
    size: 'Geben Sie eine Größe wie 100MB, 5GB oder eine Anzahl Bytes an',
    positiveSize: 'die Größe muss größer als 0 sein',
    count: (max) => `Geben Sie eine ganze Zahl von 1 bis ${max} an`,
    required: 'die Adresse des Videodienstes ist erforderlich',
    url: 'Geben Sie eine absolute http(s)-URL oder einen Pfad an, der mit / beginnt',
    theme: 'Verwenden Sie light, dark oder auto',
    chunkTooBig: 'jedes Teil muss kleiner als 5GB sein',
    accept: 'Geben Sie eine kommagetrennte Liste von MIME-Typen (video/*) und Endungen (.mkv) an',
    streamId: 'erforderlich: die ID des Livestreams, dessen Aufnahmen geschnitten werden',
    token:
      'setzen Sie das Attribut token-url oder die Eigenschaft tokenProvider: Der Uploader braucht ein Zugriffstoken',
  },
  errors: {
    network: 'Die Verbindung wurde unterbrochen. Prüfen Sie das Netzwerk und versuchen Sie es erneut.',
    notAllowed: 'Diese Seite darf gerade nicht hochladen. Laden Sie die Seite neu oder melden Sie sich erneut an.',
    quota: 'Das Videokontingent dieses Kontos ist aufgebraucht.',
    tooLarge: 'Die Datei ist zu groß für den Videodienst.',
    expired:
      'Der Upload-Link ist abgelaufen, bevor die Datei gesendet war. Versuchen Sie es erneut, um einen neuen zu erhalten.',
    integrity: 'Der Speicher hat andere Bytes erhalten als gesendet wurden. Versuchen Sie es erneut.',
    unavailable: 'Der Videodienst ist gerade nicht erreichbar. Versuchen Sie es gleich noch einmal.',
    notConfigured: 'Der Uploader ist nicht eingerichtet (siehe die Meldung oben).',
    setup: (code) =>
      `Uploader und Videodienst arbeiten hier nicht zusammen (${code}). Bitte informieren Sie den Betreiber der Website.`,
    other: (code) => `Der Upload ist fehlgeschlagen (${code}).`,
  },
  uppy: {},
};
export default de;
