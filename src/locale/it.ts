import type { Strings } from './en.js';
import { isolate as b } from './isolate.js';

const it: Strings = {
  dashboardNote: 'File video: MP4, MOV, MKV, WebM, AVI, MPEG-TS e altri.',
  processing: (name) => `Elaborazione di ${b(name)}…`,
  ready: (name) => `${b(name)} è pronto.`,
  failed: (name, reason) => `Non è stato possibile elaborare ${b(name)}${reason ? `: ${b(reason)}` : '.'}`,
  stillProcessing: (name) => `${b(name)} è ancora in elaborazione. Sarà pronto più tardi.`,
  previewLabel: (name) => `Anteprima di ${b(name)}`,
  previewUnsupported: 'Questo browser non può riprodurre video HLS.',
  previewsLabel: 'Video caricati',
  emptyFile: (name) => `${b(name)} è vuoto (0 byte) e non è stato aggiunto.`,
  tooManyChunks: (name, chunks, gb) =>
    `${b(name)} è troppo grande: servirebbero più di ${chunks.toLocaleString('it')} parti sotto i ${gb} GB.`,
  sessionExpired: (name) =>
    `La sessione di caricamento di ${b(name)} è scaduta prima dell’invio completo: il caricamento ricomincia dall’inizio.`,
  singleRestarts: (name) => `${b(name)} viene inviato in un solo pezzo: riprendere lo ricomincia dall’inizio.`,
  notSameFile: (name) =>
    `${b(name)} non è il file il cui caricamento è stato interrotto: stesso nome e dimensione, contenuto diverso. Rimuovilo e aggiungi l’originale.`,
  addAgain: (name) =>
    `Il caricamento di ${b(name)} è stato interrotto. Aggiungi di nuovo lo stesso file per riprendere da dove si era fermato.`,
  completedAfterInterruption: (name) => `Il caricamento interrotto di ${b(name)} aveva tutte le parti: ora è completo.`,
  discardedExpired: (name) =>
    `Il caricamento interrotto di ${b(name)} è scaduto prima di finire. Aggiungi di nuovo il file per caricarlo dall’inizio.`,
  linkSource: 'Link',
  linkLabel: 'Indirizzo di un file video',
  linkSubmit: 'Importa',
  linkRefused: (url) => `${b(url)} non può essere importato: indica l’indirizzo http(s) di un file video su internet.`,
  tooLong: (name, length, limit) => `${b(name)} dura ${length}; sono accettati video fino a ${limit}.`,
  tooShort: (name, length, limit) => `${b(name)} dura ${length}; sono accettati video di almeno ${limit}.`,
  resolutionTooHigh: (name, resolution, limit) => `${b(name)} è ${resolution}; sono accettati video fino a ${limit}.`,
  resolutionTooLow: (name, resolution, limit) => `${b(name)} è ${resolution}; sono accettati video di almeno ${limit}.`,
  unreadable: (name) =>
    `Non è stato possibile leggere ${b(name)} come video, quindi durata e risoluzione non possono essere verificate; non è stato aggiunto.`,
  leaveWhileUploading: 'Un caricamento è ancora in corso. Lasciare comunque la pagina?',
  invalid: (attribute, value, expected) => `${attribute}="${value}" non è valido: ${expected}.`,
  expected: {
    sources: 'usa un elenco separato da virgole di files, link, camera e screen',
    duration: 'usa una durata come 90s, 10m, 1h30m o 01:30:00',
    resolution: 'usa una risoluzione come 1080p o 3840x2160',
    size: 'usa una dimensione come 100MB, 5GB o un numero di byte',
    positiveSize: 'la dimensione deve essere maggiore di 0',
    count: (max) => `usa un numero intero da 1 a ${max}`,
    required: 'è obbligatorio: l’indirizzo del servizio video',
    url: 'usa un URL http(s) assoluto o un percorso che inizia con /',
    theme: 'usa light, dark o auto',
    chunkTooBig: 'ogni parte deve essere più piccola di 5GB',
    accept: 'usa un elenco separato da virgole di tipi MIME (video/*) ed estensioni (.mkv)',
    streamId: 'è obbligatorio: l’id della diretta di cui si ritagliano le registrazioni',
    token:
      'imposta l’attributo token-url o la proprietà tokenProvider: il caricatore ha bisogno di un token di accesso',
  },
  errors: {
    network: 'La connessione si è interrotta. Controlla la rete e riprova.',
    notAllowed: 'Questa pagina non può caricare in questo momento. Ricarica la pagina o accedi di nuovo.',
    quota: 'La quota video di questo account è esaurita.',
    tooLarge: 'Il file è troppo grande per il servizio video.',
    expired: 'Il link di caricamento è scaduto prima dell’invio del file. Riprova per ottenerne uno nuovo.',
    integrity: 'L’archivio ha ricevuto byte diversi da quelli inviati. Riprova il caricamento.',
    unavailable: 'Il servizio video non è disponibile al momento. Riprova tra poco.',
    notConfigured: 'Il caricatore non è configurato (vedi il messaggio sopra).',
    setup: (code) =>
      `Il caricatore e il servizio video qui non funzionano insieme (${code}). Avvisa il gestore del sito.`,
    other: (code) => `Il caricamento non è riuscito (${code}).`,
  },
  uppy: {},
};
export default it;
