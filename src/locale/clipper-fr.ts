import type { ClipperStrings } from './clipper.js';
import uploader from './fr.js';
import { isolate as b } from './isolate.js';

const fr: ClipperStrings = {
  invalid: uploader.invalid,
  expected: uploader.expected,
  recordingsLabel: 'Enregistrements de ce direct',
  noRecordings:
    'Aucun enregistrement pour l’instant. Un enregistrement apparaît quelques secondes après le début du direct.',
  status: { live: 'En direct', stopped: 'Arrêté', complete: 'Terminé' },
  recording: (status, start, length, exports) => `${status} : ${start}, ${length} · ${exports}`,
  // 0 and 1 take the singular in French.
  exportsCount: (n) => (n < 2 ? `${n} exportation` : `${n} exportations`),
  playerLabel: 'Enregistrement',
  timelineLabel: 'Partie à convertir',
  start: 'Début',
  end: 'Fin',
  length: (seconds) => `${seconds} s`,
  lengthLabel: 'Durée',
  liveEdge: 'position du direct',
  keysHelp:
    'Les flèches déplacent un curseur de 1 s, Maj+flèches le début d’une image, Pg préc et Pg suiv de 10 s ; I et O placent le début et la fin sur la tête de lecture.',
  timecodeInvalid: (field, text) =>
    `${field} : ${b(text)} n’est pas un code temporel. Utilisez heures:minutes:secondes.millisecondes, par exemple 00:01:05.250.`,
  preview: 'Lire la partie en boucle',
  convert: 'Convertir en vidéo',
  convertWhole: 'Convertir tout l’enregistrement',
  wholeWaits:
    'L’enregistrement entier pourra être converti une fois le direct terminé ; une partie peut l’être dès maintenant.',
  requested: (length, start) => `Conversion de ${length} à partir de ${start}…`,
  entryStatus: { PROCESSING: 'Conversion en cours…', EXPORTED: 'Prête', FAILED: 'Échec' },
  entry: (start, length, status) => `${start}, ${length} : ${status}`,
  exportsLabel: 'Conversions de cet enregistrement',
  failed: (reason) => `La conversion a échoué${reason ? ` : ${b(reason)}` : '.'}`,
  refused: (reason) => `Le service vidéo a refusé la conversion : ${b(reason)}`,
  resultLabel: 'La nouvelle vidéo',
  videosLabel: 'Vidéos créées à partir de ce direct',
  noVideos: 'Aucune pour l’instant.',
  videoStatus: { waiting: 'En attente de son fichier', processing: 'En traitement', ready: 'Prête', failed: 'Échec' },
  video: (length, status) => `${length}, ${status}`,
  play: (length, made) => `Lire la vidéo de ${length} créée le ${made}`,
  deleted:
    'Cet enregistrement a été supprimé (les enregistrements sont conservés 3 jours) : il ne peut plus être découpé.',
  unreachable:
    'Le service vidéo est injoignable pour le moment ; la liste sera mise à jour dès qu’il sera de nouveau joignable.',
  unplayable: uploader.previewUnsupported,
};
export default fr;
