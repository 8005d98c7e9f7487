import type { Strings } from './en.js';
import { isolate as b } from './isolate.js';

const pt: Strings = {
  dashboardNote: 'Arquivos de vídeo: MP4, MOV, MKV, WebM, AVI, MPEG-TS e outros.',
  processing: (name) => `Processando ${b(name)}…`,
  ready: (name) => `${b(name)} está pronto.`,
  failed: (name, reason) => `Não foi possível processar ${b(name)}${reason ? `: ${b(reason)}` : '.'}`,
  stillProcessing: (name) => `${b(name)} ainda está sendo processado. Ficará pronto mais tarde.`,
  previewLabel: (name) => `Prévia de ${b(name)}`,
  previewUnsupported: 'Este navegador não reproduz vídeo HLS.',
  previewsLabel: 'Vídeos enviados',
  emptyFile: (name) => `${b(name)} está vazio (0 bytes) e não foi adicionado.`,
  tooManyChunks: (name, chunks, gb) =>
    `${b(name)} é grande demais: precisaria de mais de ${chunks.toLocaleString('pt')} partes menores que ${gb} GB.`,
  sessionExpired: (name) =>
    `A sessão de envio de ${b(name)} expirou antes de tudo ser enviado, então o envio recomeça do início.`,
  singleRestarts: (name) => `${b(name)} é enviado de uma vez: retomar recomeça do início.`,
  notSameFile: (name) =>
    `${b(name)} não é o arquivo cujo envio foi interrompido: mesmo nome e tamanho, conteúdo diferente. Remova-o e adicione o original.`,
  addAgain: (name) =>
    `O envio de ${b(name)} foi interrompido. Adicione o mesmo arquivo de novo para continuar de onde parou.`,
  completedAfterInterruption: (name) =>
    `O envio interrompido de ${b(name)} tinha todas as partes: agora está concluído.`,
  discardedExpired: (name) =>
    `O envio interrompido de ${b(name)} expirou antes de terminar. Adicione o arquivo de novo para enviá-lo do início.`,
  linkSource: 'Link',
  linkLabel: 'Endereço de um arquivo de vídeo',
  linkSubmit: 'Importar',
  linkRefused: (url) =>
    `${b(url)} não pode ser importado: informe o endereço http(s) de um arquivo de vídeo na internet.`,
  tooLong: (name, length, limit) => `${b(name)} tem ${length} de duração; são aceitos vídeos de até ${limit}.`,
  tooShort: (name, length, limit) => `${b(name)} tem ${length} de duração; são aceitos vídeos de pelo menos ${limit}.`,
  resolutionTooHigh: (name, resolution, limit) => `${b(name)} tem ${resolution}; são aceitos vídeos de até ${limit}.`,
  resolutionTooLow: (name, resolution, limit) =>
    `${b(name)} tem ${resolution}; são aceitos vídeos de pelo menos ${limit}.`,
  unreadable: (name) =>
    `Não foi possível ler ${b(name)} como vídeo, então a duração e a resolução não podem ser verificadas; ele não foi adicionado.`,
  leaveWhileUploading: 'Um envio ainda está em andamento. Sair da página mesmo assim?',
  invalid: (attribute, value, expected) => `${attribute}="${value}" não é válido: ${expected}.`,
  expected: {
    sources: 'use uma lista separada por vírgulas de files, link, camera e screen',
    duration: 'use uma duração como 90s, 10m, 1h30m ou 01:30:00',
    resolution: 'use uma resolução como 1080p ou 3840x2160',
    size: 'use um tamanho como 100MB, 5GB ou um número de bytes',
    positiveSize: 'o tamanho deve ser maior que 0',
    count: (max) => `use um número inteiro de 1 a ${max}`,
    required: 'é obrigatório: o endereço do serviço de vídeo',
    url: 'use uma URL http(s) absoluta ou um caminho que comece com /',
    theme: 'use light, dark ou auto',
    chunkTooBig: 'cada parte deve ser menor que 5GB',
    accept: 'use uma lista separada por vírgulas de tipos MIME (video/*) e extensões (.mkv)',
    streamId: 'é obrigatório: o id da transmissão ao vivo cujas gravações são recortadas',
    token: 'defina o atributo token-url ou a propriedade tokenProvider: o envio precisa de um token de acesso',
  },
  errors: {
    network: 'A conexão caiu. Verifique a rede e tente de novo.',
    notAllowed: 'Esta página não tem permissão para enviar agora. Recarregue a página ou entre novamente.',
    quota: 'A cota de vídeo desta conta acabou.',
    tooLarge: 'O arquivo é grande demais para o serviço de vídeo.',
    expired: 'O link de envio expirou antes de o arquivo ser enviado. Tente de novo para obter um novo.',
    integrity: 'O armazenamento recebeu bytes diferentes dos enviados. Tente o envio de novo.',
    unavailable: 'O serviço de vídeo não está disponível agora. Tente de novo em instantes.',
    notConfigured: 'O envio não está configurado (veja a mensagem acima).',
    setup: (code) => `O envio e o serviço de vídeo não funcionam juntos aqui (${code}). Avise o responsável pelo site.`,
    other: (code) => `O envio falhou (${code}).`,
  },
  uppy: {},
};
export default pt;
