import type { Strings } from './en.js';
import { isolate as b } from './isolate.js';

const fr: Strings = {
  dashboardNote: 'Fichiers vidéo : MP4, MOV, MKV, WebM, AVI, MPEG-TS et d’autres.',
  processing: (name) => `Traitement de ${b(name)}…`,
  ready: (name) => `La vidéo ${b(name)} est prête.`,
  failed: (name, reason) => `La vidéo ${b(name)} n’a pas pu être traitée${reason ? `\u202f: ${b(reason)}` : '.'}`,
  stillProcessing: (name) => `La vidéo ${b(name)} est encore en traitement. Elle sera prête plus tard.`,
  previewLabel: (name) => `Aperçu de ${b(name)}`,
  previewUnsupported: 'Ce navigateur ne peut pas lire la vidéo HLS.',
  previewsLabel: 'Vidéos envoyées',
  emptyFile: (name) => `${b(name)} est vide (0 octet) et n’a pas été ajouté.`,
  tooManyChunks: (name, chunks, gb) =>
    `${b(name)} est trop volumineux : il faudrait plus de ${chunks.toLocaleString('fr')} morceaux de moins de ${gb} Go.`,
  sessionExpired: (name) => `La session d’envoi de ${b(name)} a expiré avant la fin : l’envoi reprend depuis le début.`,
  singleRestarts: (name) => `${b(name)} est envoyé d’un seul tenant : reprendre recommence depuis le début.`,
  notSameFile: (name) =>
    `${b(name)} n’est pas le fichier dont l’envoi a été interrompu : même nom et même taille, contenu différent. Retirez-le et ajoutez l’original.`,
  addAgain: (name) =>
    `L’envoi de ${b(name)} a été interrompu. Ajoutez de nouveau le même fichier pour reprendre là où il s’est arrêté.`,
  completedAfterInterruption: (name) =>
    `L’envoi interrompu de ${b(name)} avait toutes ses parties : il est maintenant terminé.`,
  discardedExpired: (name) =>
    `L’envoi interrompu de ${b(name)} a expiré avant la fin. Ajoutez de nouveau le fichier pour l’envoyer depuis le début.`,
  linkSource: 'Lien',
  linkLabel: 'Adresse d’un fichier vidéo',
  linkSubmit: 'Importer',
  linkRefused: (url) =>
    `${b(url)} ne peut pas être importé : indiquez l’adresse http(s) d’un fichier vidéo sur Internet.`,
  tooLong: (name, length, limit) => `${b(name)} dure ${length} ; les vidéos de ${limit} au plus sont acceptées.`,
  tooShort: (name, length, limit) => `${b(name)} dure ${length} ; les vidéos d’au moins ${limit} sont acceptées.`,
  resolutionTooHigh: (name, resolution, limit) =>
    `${b(name)} est en ${resolution} ; les vidéos jusqu’à ${limit} sont acceptées.`,
  resolutionTooLow: (name, resolution, limit) =>
    `${b(name)} est en ${resolution} ; les vidéos d’au moins ${limit} sont acceptées.`,
  unreadable: (name) =>
    `${b(name)} n’a pas pu être lu comme une vidéo : sa durée et sa résolution ne peuvent pas être vérifiées ; il n’a pas été ajouté.`,
  leaveWhileUploading: 'Un envoi est en cours. Quitter la page quand même ?',
  invalid: (attribute, value, expected) => `${attribute}="${value}" n’est pas valide : ${expected}.`,
  expected: {
    sources: 'indiquez une liste de files, link, camera et screen séparés par des virgules',
    duration: 'indiquez une durée comme 90s, 10m, 1h30m ou 01:30:00',
    resolution: 'indiquez une résolution comme 1080p ou 3840x2160',
    size: 'indiquez une taille comme 100MB, 5GB ou un nombre d’octets',
    positiveSize: 'la taille doit être supérieure à 0',
    count: (max) => `indiquez un nombre entier de 1 à ${max}`,
    required: 'l’adresse du service vidéo est obligatoire',
    url: 'indiquez une URL http(s) absolue, ou un chemin commençant par /',
    theme: 'utilisez light, dark ou auto',
    chunkTooBig: 'chaque morceau doit faire moins de 5GB',
    accept: 'indiquez une liste de types MIME (video/*) et d’extensions (.mkv) séparés par des virgules',
    streamId: 'il est requis : l’identifiant du direct dont les enregistrements sont découpés',
    token: 'définissez l’attribut token-url ou la propriété tokenProvider : l’envoi a besoin d’un jeton d’accès',
  },
  errors: {
    network: 'La connexion a été perdue. Vérifiez le réseau, puis réessayez.',
    notAllowed: 'Cette page n’est pas autorisée à envoyer pour le moment. Rechargez la page ou reconnectez-vous.',
    quota: 'Le quota vidéo de ce compte est épuisé.',
    tooLarge: 'Le fichier est trop volumineux pour le service vidéo.',
    expired: 'Le lien d’envoi a expiré avant la fin. Réessayez pour en obtenir un nouveau.',
    integrity: 'Le stockage a reçu d’autres octets que ceux envoyés. Réessayez l’envoi.',
    unavailable: 'Le service vidéo n’est pas disponible pour le moment. Réessayez dans un instant.',
    notConfigured: 'L’outil d’envoi n’est pas configuré (voir le message ci-dessus).',
    setup: (code) =>
      `L’outil d’envoi et le service vidéo ne fonctionnent pas ensemble ici (${code}). Prévenez le responsable du site.`,
    other: (code) => `L’envoi a échoué (${code}).`,
  },
  uppy: {},
};
export default fr;
