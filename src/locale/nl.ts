import type { Strings } from './en.js';
import { isolate as b } from './isolate.js';

const nl: Strings = {
  dashboardNote: 'Videobestanden: MP4, MOV, MKV, WebM, AVI, MPEG-TS en meer.',
  processing: (name) => `${b(name)} wordt verwerkt…`,
  ready: (name) => `${b(name)} is klaar.`,
  failed: (name, reason) => `${b(name)} kon niet worden verwerkt${reason ? `: ${b(reason)}` : '.'}`,
  stillProcessing: (name) => `${b(name)} wordt nog verwerkt en is later klaar.`,
  previewLabel: (name) => `Voorbeeld van ${b(name)}`,
  previewUnsupported: 'Deze browser kan geen HLS-video afspelen.',
  previewsLabel: 'Geüploade video’s',
  emptyFile: (name) => `${b(name)} is leeg (0 bytes) en is niet toegevoegd.`,
  tooManyChunks: (name, chunks, gb) =>
    `${b(name)} is te groot: er zouden meer dan ${chunks.toLocaleString('nl')} delen kleiner dan ${gb} GB nodig zijn.`,
  sessionExpired: (name) =>
    `De uploadsessie van ${b(name)} is verlopen voordat alles was verzonden. De upload begint opnieuw vanaf het begin.`,
  singleRestarts: (name) => `${b(name)} wordt in één keer verzonden: hervatten begint weer vanaf het begin.`,
  notSameFile: (name) =>
    `${b(name)} is niet het bestand waarvan de upload werd onderbroken: zelfde naam en grootte, andere inhoud. Verwijder het en voeg het origineel toe.`,
  addAgain: (name) =>
    `De upload van ${b(name)} is onderbroken. Voeg hetzelfde bestand opnieuw toe om verder te gaan waar hij stopte.`,
  completedAfterInterruption: (name) => `De onderbroken upload van ${b(name)} had alle delen: hij is nu voltooid.`,
  discardedExpired: (name) =>
    `De onderbroken upload van ${b(name)} is verlopen. Voeg het bestand opnieuw toe om het vanaf het begin te uploaden.`,
  linkSource: 'Link',
  linkLabel: 'Adres van een videobestand',
  linkSubmit: 'Importeren',
  linkRefused: (url) =>
    `${b(url)} kan niet worden geïmporteerd: geef het http(s)-adres van een videobestand op internet.`,
  tooLong: (name, length, limit) => `${b(name)} duurt ${length}; video’s tot ${limit} worden geaccepteerd.`,
  tooShort: (name, length, limit) => `${b(name)} duurt ${length}; video’s van minstens ${limit} worden geaccepteerd.`,
  resolutionTooHigh: (name, resolution, limit) =>
    `${b(name)} is ${resolution}; video’s tot ${limit} worden geaccepteerd.`,
  resolutionTooLow: (name, resolution, limit) =>
    `${b(name)} is ${resolution}; video’s van minstens ${limit} worden geaccepteerd.`,
  unreadable: (name) =>
    `${b(name)} kon niet als video worden gelezen, dus lengte en resolutie zijn niet te controleren; het is niet toegevoegd.`,
  leaveWhileUploading: 'Er loopt nog een upload. Toch de pagina verlaten?',
  invalid: (attribute, value, expected) => `${attribute}="${value}" is ongeldig: ${expected}.`,
  expected: {
    sources: 'gebruik een door komma’s gescheiden lijst van files, link, camera en screen',
    duration: 'gebruik een lengte zoals 90s, 10m, 1h30m of 01:30:00',
    resolution: 'gebruik een resolutie zoals 1080p of 3840x2160',
    size: 'gebruik een grootte zoals 100MB, 5GB of een aantal bytes',
    positiveSize: 'de grootte moet meer dan 0 zijn',
    count: (max) => `gebruik een geheel getal van 1 tot en met ${max}`,
    required: 'het adres van de videodienst is verplicht',
    url: 'gebruik een absolute http(s)-URL, of een pad dat met / begint',
    theme: 'gebruik light, dark of auto',
    chunkTooBig: 'elk deel moet kleiner zijn dan 5GB',
    accept: 'gebruik een door komma’s gescheiden lijst van MIME-typen (video/*) en extensies (.mkv)',
    streamId: 'dit is verplicht: de id van de livestream waarvan opnamen worden geknipt',
    token: 'stel het attribuut token-url of de eigenschap tokenProvider in: de uploader heeft een toegangstoken nodig',
  },
  errors: {
    network: 'De verbinding is verbroken. Controleer het netwerk en probeer het opnieuw.',
    notAllowed: 'Deze pagina mag nu niet uploaden. Laad de pagina opnieuw of meld u opnieuw aan.',
    quota: 'Het videotegoed van dit account is op.',
    tooLarge: 'Het bestand is te groot voor de videodienst.',
    expired: 'De uploadlink is verlopen voordat het bestand was verzonden. Probeer het opnieuw voor een nieuwe link.',
    integrity: 'De opslag heeft andere bytes ontvangen dan er zijn verzonden. Probeer de upload opnieuw.',
    unavailable: 'De videodienst is nu niet beschikbaar. Probeer het zo opnieuw.',
    notConfigured: 'De uploader is niet ingesteld (zie de melding hierboven).',
    setup: (code) =>
      `De uploader en de videodienst werken hier niet samen (${code}). Meld het aan de beheerder van de site.`,
    other: (code) => `De upload is mislukt (${code}).`,
  },
  uppy: {},
};
export default nl;
