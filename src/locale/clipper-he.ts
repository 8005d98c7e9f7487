import type { ClipperStrings } from './clipper.js';
import uploader from './he.js';
import { isolate as b } from './isolate.js';

// Dates and lengths are isolated as the uploader's Hebrew table isolates its lengths: their digits and
// separators keep their own order inside the right-to-left sentence.
const he: ClipperStrings = {
  invalid: uploader.invalid,
  expected: uploader.expected,
  recordingsLabel: 'ההקלטות של השידור הזה',
  noRecordings: 'אין עדיין הקלטות. הקלטה מופיעה כמה שניות אחרי שהשידור מתחיל.',
  status: { live: 'בשידור חי', stopped: 'הופסקה', complete: 'הושלמה' },
  recording: (status, start, length, exports) => `${status}: ${b(start)}, ${b(length)} · ${exports}`,
  exportsCount: (n) => (n === 1 ? 'ייצוא אחד' : `${n} ייצואים`),
  playerLabel: 'הקלטה',
  timelineLabel: 'הקטע להמרה',
  start: 'התחלה',
  end: 'סוף',
  length: (seconds) => `${seconds} שנ׳`,
  lengthLabel: 'אורך',
  liveEdge: 'נקודת השידור החי',
  keysHelp:
    'מקשי החיצים מזיזים ידית בשנייה אחת, Shift עם החיצים מזיז את ההתחלה בפריים אחד, ו־Page Up ו־Page Down מזיזים ב־10 שניות; I ו־O קובעים את ההתחלה והסוף במיקום ההפעלה.',
  timecodeInvalid: (field, text) =>
    `${field}: ${b(text)} אינו קוד זמן. כתבו שעות, דקות, שניות ואלפיות שנייה כך: 00:01:05.250.`,
  preview: 'הפעלת הקטע בלולאה',
  convert: 'המרה לסרטון',
  convertWhole: 'המרת ההקלטה כולה',
  wholeWaits: 'אפשר להמיר את ההקלטה כולה אחרי שהשידור מסתיים; קטע אפשר להמיר כבר עכשיו.',
  requested: (length, start) => `ממיר ${b(length)} החל מ־${b(start)}…`,
  entryStatus: { PROCESSING: 'בהמרה…', EXPORTED: 'מוכן', FAILED: 'נכשל' },
  entry: (start, length, status) => `${b(start)}, ${b(length)}: ${status}`,
  exportsLabel: 'ההמרות של ההקלטה הזו',
  failed: (reason) => `ההמרה נכשלה${reason ? `: ${b(reason)}` : '.'}`,
  refused: (reason) => `שירות הווידאו דחה את ההמרה: ${b(reason)}`,
  resultLabel: 'הסרטון החדש',
  videosLabel: 'סרטונים שנוצרו מהשידור הזה',
  noVideos: 'עדיין אין.',
  videoStatus: { waiting: 'ממתין לקובץ', processing: 'בעיבוד', ready: 'מוכן', failed: 'נכשל' },
  video: (length, status) => `${b(length)}, ${status}`,
  play: (length, made) => `הפעלת הסרטון באורך ${b(length)} שנוצר ב־${b(made)}`,
  deleted: 'ההקלטה הזו נמחקה (הקלטות נשמרות 3 ימים), ולכן אי אפשר עוד לגזור ממנה קטעים.',
  unreachable: 'אין כרגע גישה לשירות הווידאו; הרשימה תתעדכן כשתהיה.',
  unplayable: uploader.previewUnsupported,
};
export default he;
