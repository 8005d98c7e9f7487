import uploader from './ar.js';
import type { ClipperStrings } from './clipper.js';
import { isolate as b } from './isolate.js';

const plural = new Intl.PluralRules('ar');

/** Arabic counts in six forms: none, one, two (the dual), 3–10 (plural), 11–99 and 100… (singular after the number). */
function exportsCount(n: number): string {
  switch (plural.select(n)) {
    case 'zero':
      return 'لا عمليات تصدير';
    case 'one':
      return 'عملية تصدير واحدة';
    case 'two':
      return 'عمليتا تصدير';
    case 'few':
      return `${n} عمليات تصدير`;
    default:
      return `${n} عملية تصدير`;
  }
}

// Dates and lengths are isolated as the uploader's Arabic table isolates its lengths: their digits and
// separators keep their own order inside the right-to-left sentence.
const ar: ClipperStrings = {
  invalid: uploader.invalid,
  expected: uploader.expected,
  recordingsLabel: 'تسجيلات هذا البث',
  noRecordings: 'لا توجد تسجيلات بعد. يظهر التسجيل بعد بضع ثوانٍ من بدء البث.',
  status: { live: 'مباشر', stopped: 'متوقف', complete: 'مكتمل' },
  recording: (status, start, length, exports) => `${status}: ${b(start)}، ${b(length)} · ${exports}`,
  exportsCount,
  playerLabel: 'التسجيل',
  timelineLabel: 'الجزء المراد تحويله',
  start: 'البداية',
  end: 'النهاية',
  length: (seconds) => `${seconds} ث`,
  lengthLabel: 'المدة',
  liveEdge: 'موضع البث المباشر',
  keysHelp:
    'تنقل مفاتيح الأسهم المقبض ثانية واحدة، ومع Shift تنقل البداية إطارًا واحدًا، وينقله Page Up وPage Down عشر ثوانٍ؛ ويضع المفتاحان I وO البداية والنهاية عند موضع التشغيل.',
  timecodeInvalid: (field, text) =>
    `${field}: ${b(text)} ليس رمزًا زمنيًا. اكتب الساعات والدقائق والثواني وأجزاء الثانية هكذا: 00:01:05.250.`,
  preview: 'تشغيل الجزء بشكل متكرر',
  convert: 'تحويل إلى فيديو',
  convertWhole: 'تحويل التسجيل بالكامل',
  wholeWaits: 'يمكن تحويل التسجيل بالكامل بعد انتهاء البث؛ أما الجزء فيمكن تحويله الآن.',
  requested: (length, start) => `جارٍ تحويل ${b(length)} بدءًا من ${b(start)}…`,
  entryStatus: { PROCESSING: 'جارٍ التحويل…', EXPORTED: 'جاهز', FAILED: 'فشل' },
  entry: (start, length, status) => `${b(start)}، ${b(length)}: ${status}`,
  exportsLabel: 'عمليات تحويل هذا التسجيل',
  failed: (reason) => `فشل التحويل${reason ? `: ${b(reason)}` : '.'}`,
  refused: (reason) => `رفضت خدمة الفيديو التحويل: ${b(reason)}`,
  resultLabel: 'الفيديو الجديد',
  videosLabel: 'مقاطع الفيديو المُنشأة من هذا البث',
  noVideos: 'لا توجد مقاطع بعد.',
  videoStatus: { waiting: 'بانتظار ملفه', processing: 'قيد المعالجة', ready: 'جاهز', failed: 'فشل' },
  video: (length, status) => `${b(length)}، ${status}`,
  play: (length, made) => `تشغيل الفيديو الذي مدته ${b(length)}، المُنشأ في ${b(made)}`,
  deleted: 'حُذف هذا التسجيل (تُحفظ التسجيلات 3 أيام)، لذا لم يعد من الممكن اقتطاع أجزاء منه.',
  unreachable: 'تعذّر الوصول إلى خدمة الفيديو الآن؛ ستُحدَّث القائمة حين يصبح ذلك ممكنًا.',
  unplayable: uploader.previewUnsupported,
};
export default ar;
