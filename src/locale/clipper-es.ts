import type { ClipperStrings } from './clipper.js';
import uploader from './es.js';
import { isolate as b } from './isolate.js';

const es: ClipperStrings = {
  invalid: uploader.invalid,
  expected: uploader.expected,
  recordingsLabel: 'Grabaciones de esta transmisión',
  noRecordings: 'Aún no hay grabaciones. Una grabación aparece unos segundos después de que empiece la transmisión.',
  status: { live: 'En directo', stopped: 'Detenida', complete: 'Completa' },
  recording: (status, start, length, exports) => `${status}: ${start}, ${length} · ${exports}`,
  exportsCount: (n) => (n === 1 ? '1 exportación' : `${n} exportaciones`),
  playerLabel: 'Grabación',
  timelineLabel: 'Fragmento que se convertirá',
  start: 'Inicio',
  end: 'Fin',
  length: (seconds) => `${seconds} s`,
  lengthLabel: 'Duración',
  liveEdge: 'punto en directo',
  keysHelp:
    'Las flechas mueven un control 1 s; Mayús+flechas, el inicio un fotograma; Re Pág y Av Pág, 10 s; I y O fijan el inicio y el fin en el cabezal de reproducción.',
  timecodeInvalid: (field, text) =>
    `${field}: ${b(text)} no es un código de tiempo. Use horas:minutos:segundos.milisegundos, como 00:01:05.250.`,
  preview: 'Reproducir el fragmento en bucle',
  convert: 'Convertir en vídeo',
  convertWhole: 'Convertir toda la grabación',
  wholeWaits:
    'La grabación completa se podrá convertir cuando termine la transmisión; un fragmento se puede convertir ya.',
  requested: (length, start) => `Convirtiendo ${length} desde ${start}…`,
  entryStatus: { PROCESSING: 'Convirtiendo…', EXPORTED: 'Listo', FAILED: 'Error' },
  entry: (start, length, status) => `${start}, ${length}: ${status}`,
  exportsLabel: 'Conversiones de esta grabación',
  failed: (reason) => `La conversión falló${reason ? `: ${b(reason)}` : '.'}`,
  refused: (reason) => `El servicio de vídeo rechazó la conversión: ${b(reason)}`,
  resultLabel: 'El nuevo vídeo',
  videosLabel: 'Vídeos creados a partir de esta transmisión',
  noVideos: 'Todavía ninguno.',
  videoStatus: { waiting: 'Esperando su archivo', processing: 'Procesando', ready: 'Listo', failed: 'Error' },
  video: (length, status) => `${length}, ${status}`,
  play: (length, made) => `Reproducir el vídeo de ${length} creado el ${made}`,
  deleted: 'Esta grabación se ha eliminado (las grabaciones se conservan 3 días), así que ya no se puede recortar.',
  unreachable:
    'No se puede conectar con el servicio de vídeo en este momento; la lista se actualizará en cuanto se pueda.',
  unplayable: uploader.previewUnsupported,
};
export default es;
