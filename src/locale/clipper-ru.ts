import type { ClipperStrings } from './clipper.js';
import { isolate as b } from './isolate.js';
import uploader from './ru.js';

/** 1 и 21 экспорт, 2–4 и 22–24 экспорта, 0, 5–20 и 25–30 экспортов. */
const EXPORTS: Partial<Record<Intl.LDMLPluralRule, string>> = { one: 'экспорт', few: 'экспорта' };
const plural = new Intl.PluralRules('ru');

const ru: ClipperStrings = {
  invalid: uploader.invalid,
  expected: uploader.expected,
  recordingsLabel: 'Записи этой трансляции',
  noRecordings: 'Записей пока нет. Запись появляется через несколько секунд после начала трансляции.',
  status: { live: 'В эфире', stopped: 'Остановлена', complete: 'Завершена' },
  recording: (status, start, length, exports) => `${status}: ${start}, ${length} · ${exports}`,
  exportsCount: (n) => `${n} ${EXPORTS[plural.select(n)] ?? 'экспортов'}`,
  playerLabel: 'Запись',
  timelineLabel: 'Фрагмент для конвертации',
  start: 'Начало',
  end: 'Конец',
  length: (seconds) => `${seconds} с`,
  lengthLabel: 'Длительность',
  liveEdge: 'точка прямого эфира',
  keysHelp:
    'Стрелки сдвигают ползунок на 1 с, Shift+стрелки — начало на один кадр, Page Up и Page Down — на 10 с; I и O ставят начало и конец в позицию воспроизведения.',
  timecodeInvalid: (field, text) =>
    `${field}: ${b(text)} — не таймкод. Используйте формат часы:минуты:секунды.миллисекунды, например 00:01:05.250.`,
  preview: 'Воспроизводить фрагмент по кругу',
  convert: 'Конвертировать в видео',
  convertWhole: 'Конвертировать всю запись',
  wholeWaits:
    'Всю запись можно будет конвертировать, когда трансляция закончится; фрагмент можно конвертировать уже сейчас.',
  // Not "с ${start}": after "5 с" (seconds) the preposition would read as a second unit.
  requested: (length, start) => `Конвертация фрагмента (${length}) от ${start}…`,
  entryStatus: { PROCESSING: 'Конвертируется…', EXPORTED: 'Готово', FAILED: 'Ошибка' },
  entry: (start, length, status) => `${start}, ${length}: ${status}`,
  exportsLabel: 'Конвертации этой записи',
  failed: (reason) => `Конвертация не удалась${reason ? `: ${b(reason)}` : '.'}`,
  refused: (reason) => `Видеосервис отклонил конвертацию: ${b(reason)}`,
  resultLabel: 'Новое видео',
  videosLabel: 'Видео из этой трансляции',
  noVideos: 'Пока нет.',
  videoStatus: { waiting: 'Ожидает файл', processing: 'Обрабатывается', ready: 'Готово', failed: 'Ошибка' },
  video: (length, status) => `${length}, ${status}`,
  play: (length, made) => `Воспроизвести видео (${length}), созданное ${made}`,
  deleted: 'Эта запись удалена (записи хранятся 3 дня), поэтому её больше нельзя нарезать.',
  unreachable: 'Видеосервис сейчас недоступен; список обновится, когда связь восстановится.',
  unplayable: uploader.previewUnsupported,
};
export default ru;
