import type { Strings } from './en.js';
import { isolate as b } from './isolate.js';

const es: Strings = {
  dashboardNote: 'Archivos de vídeo: MP4, MOV, MKV, WebM, AVI, MPEG-TS y más.',
  processing: (name) => `Procesando ${b(name)}…`,
  ready: (name) => `${b(name)} está listo.`,
  failed: (name, reason) => `No se pudo procesar ${b(name)}${reason ? `: ${b(reason)}` : '.'}`,
  stillProcessing: (name) => `${b(name)} se sigue procesando. Estará listo más tarde.`,
  previewLabel: (name) => `Vista previa de ${b(name)}`,
  previewUnsupported: 'Este navegador no puede reproducir vídeo HLS.',
  previewsLabel: 'Vídeos subidos',
  emptyFile: (name) => `${b(name)} está vacío (0 bytes) y no se ha añadido.`,
  tooManyChunks: (name, chunks, gb) =>
    `${b(name)} es demasiado grande: necesitaría más de ${chunks.toLocaleString('es')} partes de menos de ${gb} GB.`,
  sessionExpired: (name) =>
    `La sesión de subida de ${b(name)} caducó antes de enviarlo todo, así que la subida empieza de nuevo desde el principio.`,
  singleRestarts: (name) => `${b(name)} se envía de una vez: al reanudar, empieza de nuevo desde el principio.`,
  notSameFile: (name) =>
    `${b(name)} no es el archivo cuya subida se interrumpió: mismo nombre y tamaño, distinto contenido. Quítelo y añada el original.`,
  addAgain: (name) =>
    `La subida de ${b(name)} se interrumpió. Añada el mismo archivo otra vez para continuar donde se detuvo.`,
  completedAfterInterruption: (name) =>
    `La subida interrumpida de ${b(name)} tenía todas sus partes: ya está completa.`,
  discardedExpired: (name) =>
    `La subida interrumpida de ${b(name)} caducó antes de terminar. Añada el archivo otra vez para subirlo desde el principio.`,
  linkSource: 'Enlace',
  linkLabel: 'Dirección de un archivo de vídeo',
  linkSubmit: 'Importar',
  linkRefused: (url) =>
    `${b(url)} no se puede importar: indique la dirección http(s) de un archivo de vídeo en internet.`,
  tooLong: (name, length, limit) => `${b(name)} dura ${length}; se aceptan vídeos de hasta ${limit}.`,
  tooShort: (name, length, limit) => `${b(name)} dura ${length}; se aceptan vídeos de al menos ${limit}.`,
  resolutionTooHigh: (name, resolution, limit) =>
    `${b(name)} tiene ${resolution}; se aceptan vídeos de hasta ${limit}.`,
  resolutionTooLow: (name, resolution, limit) =>
    `${b(name)} tiene ${resolution}; se aceptan vídeos de al menos ${limit}.`,
  unreadable: (name) =>
    `No se pudo leer ${b(name)} como vídeo, así que no se pueden comprobar su duración ni su resolución; no se ha añadido.`,
  leaveWhileUploading: 'Todavía hay una subida en curso. ¿Salir de la página de todos modos?',
  invalid: (attribute, value, expected) => `${attribute}="${value}" no es válido: ${expected}.`,
  expected: {
    sources: 'use una lista de files, link, camera y screen separados por comas',
    duration: 'use una duración como 90s, 10m, 1h30m o 01:30:00',
    resolution: 'use una resolución como 1080p o 3840x2160',
    size: 'use un tamaño como 100MB, 5GB o un número de bytes',
    positiveSize: 'el tamaño debe ser mayor que 0',
    count: (max) => `use un número entero del 1 al ${max}`,
    required: 'es obligatorio: la dirección del servicio de vídeo',
    url: 'use una URL http(s) absoluta o una ruta que empiece por /',
    theme: 'use light, dark o auto',
    chunkTooBig: 'cada parte debe ser menor de 5GB',
    accept: 'use una lista de tipos MIME (video/*) y extensiones (.mkv) separados por comas',
    streamId: 'es obligatorio: el id de la transmisión en directo cuyas grabaciones se recortan',
    token: 'defina el atributo token-url o la propiedad tokenProvider: el cargador necesita un token de acceso',
  },
  errors: {
    network: 'Se perdió la conexión. Compruebe la red y vuelva a intentarlo.',
    notAllowed: 'Esta página no puede subir archivos ahora. Recargue la página o vuelva a iniciar sesión.',
    quota: 'La cuota de vídeo de esta cuenta se ha agotado.',
    tooLarge: 'El archivo es demasiado grande para el servicio de vídeo.',
    expired: 'El enlace de subida caducó antes de enviar el archivo. Vuelva a intentarlo para obtener uno nuevo.',
    integrity: 'El almacenamiento recibió bytes distintos de los enviados. Vuelva a intentar la subida.',
    unavailable: 'El servicio de vídeo no está disponible ahora. Vuelva a intentarlo en un momento.',
    notConfigured: 'El cargador no está configurado (vea el mensaje de arriba).',
    setup: (code) =>
      `El cargador y el servicio de vídeo no funcionan juntos aquí (${code}). Avise al responsable del sitio.`,
    other: (code) => `La subida falló (${code}).`,
  },
  uppy: {},
};
export default es;
