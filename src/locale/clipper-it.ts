import type { ClipperStrings } from './clipper.js';
import uploader from './it.js';
import { isolate as b } from './isolate.js';

const it: ClipperStrings = {
  invalid: uploader.invalid,
  expected: uploader.expected,
  recordingsLabel: 'Registrazioni di questa diretta',
  noRecordings: 'Ancora nessuna registrazione. Una registrazione compare pochi secondi dopo l’inizio della diretta.',
  status: { live: 'In diretta', stopped: 'Interrotta', complete: 'Completa' },
  recording: (status, start, length, exports) => `${status}: ${start}, ${length} · ${exports}`,
  exportsCount: (n) => (n === 1 ? '1 esportazione' : `${n} esportazioni`),
  playerLabel: 'Registrazione',
  timelineLabel: 'Parte da convertire',
  start: 'Inizio',
  end: 'Fine',
  length: (seconds) => `${seconds} s`,
  lengthLabel: 'Durata',
  liveEdge: 'posizione della diretta',
  keysHelp:
    'Le frecce spostano un cursore di 1 s, Maiusc+frecce l’inizio di un fotogramma, PagSu e PagGiù di 10 s; I e O impostano inizio e fine sulla testina di riproduzione.',
  timecodeInvalid: (field, text) =>
    `${field}: ${b(text)} non è un timecode. Usa ore:minuti:secondi.millisecondi, ad esempio 00:01:05.250.`,
  preview: 'Riproduci la parte in loop',
  convert: 'Converti in video',
  convertWhole: 'Converti tutta la registrazione',
  wholeWaits:
    'L’intera registrazione si può convertire quando la diretta è terminata; una parte si può convertire già ora.',
  requested: (length, start) => `Conversione di ${length} da ${start}…`,
  entryStatus: { PROCESSING: 'Conversione in corso…', EXPORTED: 'Pronto', FAILED: 'Non riuscito' },
  entry: (start, length, status) => `${start}, ${length}: ${status}`,
  exportsLabel: 'Conversioni di questa registrazione',
  failed: (reason) => `La conversione non è riuscita${reason ? `: ${b(reason)}` : '.'}`,
  refused: (reason) => `Il servizio video ha rifiutato la conversione: ${b(reason)}`,
  resultLabel: 'Il nuovo video',
  videosLabel: 'Video creati da questa diretta',
  noVideos: 'Ancora nessuno.',
  videoStatus: {
    waiting: 'In attesa del file',
    processing: 'In elaborazione',
    ready: 'Pronto',
    failed: 'Non riuscito',
  },
  video: (length, status) => `${length}, ${status}`,
  play: (length, made) => `Riproduci il video di ${length} creato il ${made}`,
  deleted:
    'Questa registrazione è stata eliminata (le registrazioni si conservano per 3 giorni), quindi non si può più ritagliare.',
  unreachable:
    'Il servizio video non è raggiungibile al momento; l’elenco si aggiornerà appena sarà di nuovo raggiungibile.',
  unplayable: uploader.previewUnsupported,
};
export default it;
