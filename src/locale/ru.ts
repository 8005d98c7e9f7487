import type { Strings } from './en.js';
import { isolate as b } from './isolate.js';

const ru: Strings = {
  dashboardNote: 'Видеофайлы: MP4, MOV, MKV, WebM, AVI, MPEG-TS и другие.',
  processing: (name) => `Обработка ${b(name)}…`,
  ready: (name) => `Видео ${b(name)} готово.`,
  failed: (name, reason) => `Не удалось обработать ${b(name)}${reason ? `: ${b(reason)}` : '.'}`,
  stillProcessing: (name) => `Видео ${b(name)} ещё обрабатывается. Оно будет готово позже.`,
  previewLabel: (name) => `Предпросмотр ${b(name)}`,
  previewUnsupported: 'Этот браузер не может воспроизводить видео HLS.',
  previewsLabel: 'Загруженные видео',
  emptyFile: (name) => `Файл ${b(name)} пуст (0 байт) и не был добавлен.`,
  tooManyChunks: (name, chunks, gb) =>
    `Файл ${b(name)} слишком велик: понадобилось бы больше ${chunks.toLocaleString('ru')} частей меньше ${gb} ГБ.`,
  sessionExpired: (name) =>
    `Сеанс загрузки ${b(name)} истёк до того, как всё было отправлено, поэтому загрузка начинается заново.`,
  singleRestarts: (name) => `${b(name)} отправляется целиком: при возобновлении загрузка начнётся сначала.`,
  notSameFile: (name) =>
    `${b(name)} — не тот файл, загрузка которого прервалась: то же имя и размер, но другое содержимое. Удалите его и добавьте исходный файл.`,
  addAgain: (name) => `Загрузка ${b(name)} прервалась. Добавьте тот же файл снова, чтобы продолжить с места остановки.`,
  completedAfterInterruption: (name) => `У прерванной загрузки ${b(name)} были все части: теперь она завершена.`,
  discardedExpired: (name) =>
    `Прерванная загрузка ${b(name)} истекла до завершения. Добавьте файл снова, чтобы загрузить его с начала.`,
  linkSource: 'Ссылка',
  linkLabel: 'Адрес видеофайла',
  linkSubmit: 'Импортировать',
  linkRefused: (url) => `${b(url)} нельзя импортировать: укажите адрес http(s) видеофайла в интернете.`,
  tooLong: (name, length, limit) => `Длительность ${b(name)} — ${length}; принимаются видео до ${limit}.`,
  tooShort: (name, length, limit) => `Длительность ${b(name)} — ${length}; принимаются видео не короче ${limit}.`,
  resolutionTooHigh: (name, resolution, limit) =>
    `Разрешение ${b(name)} — ${resolution}; принимаются видео до ${limit}.`,
  resolutionTooLow: (name, resolution, limit) =>
    `Разрешение ${b(name)} — ${resolution}; принимаются видео не меньше ${limit}.`,
  unreadable: (name) =>
    `Не удалось прочитать ${b(name)} как видео, поэтому нельзя проверить длительность и разрешение; файл не добавлен.`,
  leaveWhileUploading: 'Загрузка ещё идёт. Всё равно покинуть страницу?',
  invalid: (attribute, value, expected) => `Недопустимое значение ${attribute}="${value}": ${expected}.`,
  expected: {
    sources: 'укажите через запятую files, link, camera и screen',
    duration: 'укажите длительность, например 90s, 10m, 1h30m или 01:30:00',
    resolution: 'укажите разрешение, например 1080p или 3840x2160',
    size: 'укажите размер, например 100MB, 5GB или число байтов',
    positiveSize: 'размер должен быть больше 0',
    count: (max) => `укажите целое число от 1 до ${max}`,
    required: 'обязательно укажите адрес видеосервиса',
    url: 'укажите абсолютный URL http(s) или путь, начинающийся с /',
    theme: 'используйте light, dark или auto',
    chunkTooBig: 'каждая часть должна быть меньше 5GB',
    accept: 'укажите через запятую MIME-типы (video/*) и расширения (.mkv)',
    streamId: 'обязателен: id прямой трансляции, записи которой нарезаются',
    token: 'задайте атрибут token-url или свойство tokenProvider: загрузчику нужен токен доступа',
  },
  errors: {
    network: 'Соединение прервалось. Проверьте сеть и повторите попытку.',
    notAllowed: 'Этой странице сейчас нельзя загружать файлы. Обновите страницу или войдите снова.',
    quota: 'Видеоквота этой учётной записи исчерпана.',
    tooLarge: 'Файл слишком велик для видеосервиса.',
    expired: 'Ссылка для загрузки истекла до отправки файла. Повторите попытку, чтобы получить новую.',
    integrity: 'Хранилище получило не те байты, что были отправлены. Повторите загрузку.',
    unavailable: 'Видеосервис сейчас недоступен. Повторите попытку чуть позже.',
    notConfigured: 'Загрузчик не настроен (см. сообщение выше).',
    setup: (code) => `Загрузчик и видеосервис здесь несовместимы (${code}). Сообщите владельцу сайта.`,
    other: (code) => `Загрузка не удалась (${code}).`,
  },
  uppy: {},
};
export default ru;
