import type { ClipperStrings } from './clipper.js';
import { isolate as b } from './isolate.js';
import uploader from './pt.js';

const pt: ClipperStrings = {
  invalid: uploader.invalid,
  expected: uploader.expected,
  recordingsLabel: 'Gravações desta transmissão',
  noRecordings: 'Ainda não há gravações. Uma gravação aparece alguns segundos depois que a transmissão começa.',
  status: { live: 'Ao vivo', stopped: 'Parada', complete: 'Concluída' },
  recording: (status, start, length, exports) => `${status}: ${start}, ${length} · ${exports}`,
  exportsCount: (n) => (n === 1 ? '1 exportação' : `${n} exportações`),
  playerLabel: 'Gravação',
  timelineLabel: 'Trecho a converter',
  start: 'Início',
  end: 'Fim',
  length: (seconds) => `${seconds} s`,
  lengthLabel: 'Duração',
  liveEdge: 'ponto ao vivo',
  keysHelp:
    'As setas movem um marcador 1 s, Shift+setas movem o início um quadro, Page Up e Page Down movem 10 s; I e O definem o início e o fim no indicador de reprodução.',
  timecodeInvalid: (field, text) =>
    `${field}: ${b(text)} não é um código de tempo. Use horas:minutos:segundos.milissegundos, como 00:01:05.250.`,
  preview: 'Reproduzir o trecho em loop',
  convert: 'Converter em vídeo',
  convertWhole: 'Converter a gravação inteira',
  wholeWaits:
    'A gravação inteira pode ser convertida depois que a transmissão terminar; um trecho pode ser convertido agora.',
  requested: (length, start) => `Convertendo ${length} a partir de ${start}…`,
  entryStatus: { PROCESSING: 'Convertendo…', EXPORTED: 'Pronto', FAILED: 'Falhou' },
  entry: (start, length, status) => `${start}, ${length}: ${status}`,
  exportsLabel: 'Conversões desta gravação',
  failed: (reason) => `A conversão falhou${reason ? `: ${b(reason)}` : '.'}`,
  refused: (reason) => `O serviço de vídeo recusou a conversão: ${b(reason)}`,
  resultLabel: 'O novo vídeo',
  videosLabel: 'Vídeos criados a partir desta transmissão',
  noVideos: 'Nenhum ainda.',
  videoStatus: { waiting: 'Aguardando o arquivo', processing: 'Processando', ready: 'Pronto', failed: 'Falhou' },
  video: (length, status) => `${length}, ${status}`,
  play: (length, made) => `Reproduzir o vídeo de ${length} criado em ${made}`,
  deleted: 'Esta gravação foi excluída (as gravações são mantidas por 3 dias), então não pode mais ser recortada.',
  unreachable: 'Não é possível acessar o serviço de vídeo agora; a lista será atualizada assim que for possível.',
  unplayable: uploader.previewUnsupported,
};
export default pt;
