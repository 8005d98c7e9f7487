import type { Strings } from './en.js';
import { isolate as b } from './isolate.js';

const he: Strings = {
  dashboardNote: 'קובצי וידאו: MP4,‏ MOV,‏ MKV,‏ WebM,‏ AVI,‏ MPEG-TS ועוד.',
  processing: (name) => `מעבד את ${b(name)}…`,
  ready: (name) => `${b(name)} מוכן.`,
  failed: (name, reason) => `לא ניתן היה לעבד את ${b(name)}${reason ? `: ${b(reason)}` : '.'}`,
  stillProcessing: (name) => `${b(name)} עדיין בעיבוד. הוא יהיה מוכן מאוחר יותר.`,
  previewLabel: (name) => `תצוגה מקדימה של ${b(name)}`,
  previewUnsupported: 'הדפדפן הזה לא יכול לנגן וידאו HLS.',
  previewsLabel: 'סרטונים שהועלו',
  emptyFile: (name) => `${b(name)} ריק (0 בתים) ולא נוסף.`,
  tooManyChunks: (name, chunks, gb) =>
    `${b(name)} גדול מדי: הוא ידרוש יותר מ־${chunks.toLocaleString('he')} חלקים קטנים מ־${gb}GB.`,
  sessionExpired: (name) => `תוקף סשן ההעלאה של ${b(name)} פג לפני שהכול נשלח, ולכן ההעלאה מתחילה מההתחלה.`,
  singleRestarts: (name) => `${b(name)} נשלח בחלק אחד: חידוש ההעלאה מתחיל אותה מההתחלה.`,
  notSameFile: (name) =>
    `${b(name)} אינו הקובץ שהעלאתו נקטעה: אותו שם ואותו גודל, תוכן שונה. הסירו אותו והוסיפו את המקורי.`,
  addAgain: (name) => `ההעלאה של ${b(name)} נקטעה. הוסיפו שוב את אותו קובץ כדי להמשיך מהמקום שבו נעצרה.`,
  completedAfterInterruption: (name) => `להעלאה שנקטעה של ${b(name)} היו כל החלקים: היא הושלמה עכשיו.`,
  discardedExpired: (name) =>
    `תוקף ההעלאה שנקטעה של ${b(name)} פג לפני שהסתיימה. הוסיפו את הקובץ שוב כדי להעלות אותו מההתחלה.`,
  linkSource: 'קישור',
  linkLabel: 'כתובת של קובץ וידאו',
  linkSubmit: 'ייבוא',
  linkRefused: (url) => `${b(url)} לא ניתן לייבא: הזינו כתובת http(s) של קובץ וידאו באינטרנט.`,
  tooLong: (name, length, limit) => `האורך של ${b(name)} הוא ${b(length)}; מתקבלים סרטונים עד ${b(limit)}.`,
  tooShort: (name, length, limit) => `האורך של ${b(name)} הוא ${b(length)}; מתקבלים סרטונים של ${b(limit)} לפחות.`,
  resolutionTooHigh: (name, resolution, limit) =>
    `הרזולוציה של ${b(name)} היא ${b(resolution)}; מתקבלים סרטונים עד ${b(limit)}.`,
  resolutionTooLow: (name, resolution, limit) =>
    `הרזולוציה של ${b(name)} היא ${b(resolution)}; מתקבלים סרטונים של ${b(limit)} לפחות.`,
  unreadable: (name) =>
    `לא ניתן היה לקרוא את ${b(name)} כווידאו, ולכן אי אפשר לבדוק את האורך והרזולוציה; הקובץ לא נוסף.`,
  leaveWhileUploading: 'העלאה עדיין פועלת. לצאת מהדף בכל זאת?',
  invalid: (attribute, value, expected) => `הערך ${b(`${attribute}="${value}"`)} אינו תקין: ${expected}.`,
  expected: {
    sources: 'השתמשו ברשימה מופרדת בפסיקים של files,‏ link,‏ camera ו־screen',
    duration: 'השתמשו באורך כמו 90s, 10m, 1h30m או 01:30:00',
    resolution: 'השתמשו ברזולוציה כמו 1080p או 3840x2160',
    size: 'השתמשו בגודל כמו 100MB,‏ 5GB או במספר בתים',
    positiveSize: 'הגודל חייב להיות גדול מ־0',
    count: (max) => `השתמשו במספר שלם מ־1 עד ${max}`,
    required: 'כתובת שירות הווידאו היא חובה',
    url: 'השתמשו בכתובת URL מוחלטת של http(s), או בנתיב שמתחיל ב־/',
    theme: 'השתמשו ב־light,‏ dark או auto',
    chunkTooBig: 'כל חלק חייב להיות קטן מ־5GB',
    accept: 'השתמשו ברשימה מופרדת בפסיקים של סוגי MIME ‏(video/*) וסיומות (.mkv)',
    streamId: 'זהו שדה חובה: המזהה של השידור החי שמהקלטותיו גוזרים קטעים',
    token: 'הגדירו את המאפיין token-url או את המאפיין tokenProvider: רכיב ההעלאה צריך אסימון גישה',
  },
  errors: {
    network: 'החיבור נותק. בדקו את הרשת ונסו שוב.',
    notAllowed: 'לדף הזה אין כרגע הרשאה להעלות. טענו את הדף מחדש או התחברו שוב.',
    quota: 'מכסת הווידאו של החשבון הזה נוצלה.',
    tooLarge: 'הקובץ גדול מדי עבור שירות הווידאו.',
    expired: 'תוקף קישור ההעלאה פג לפני שהקובץ נשלח. נסו שוב כדי לקבל קישור חדש.',
    integrity: 'האחסון קיבל בתים שונים מאלה שנשלחו. נסו להעלות שוב.',
    unavailable: 'שירות הווידאו אינו זמין כרגע. נסו שוב בעוד רגע.',
    notConfigured: 'רכיב ההעלאה לא הוגדר (ראו את ההודעה למעלה).',
    setup: (code) => `רכיב ההעלאה ושירות הווידאו לא עובדים כאן יחד (${b(code)}). עדכנו את בעלי האתר.`,
    other: (code) => `ההעלאה נכשלה (${b(code)}).`,
  },
  uppy: {},
};
export default he;
