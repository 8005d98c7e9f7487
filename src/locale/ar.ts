import type { Strings } from './en.js';
import { isolate as b } from './isolate.js';

const ar: Strings = {
  dashboardNote: 'ملفات الفيديو: MP4 وMOV وMKV وWebM وAVI وMPEG-TS وغيرها.',
  processing: (name) => `جارٍ معالجة ${b(name)}…`,
  ready: (name) => `${b(name)} جاهز.`,
  failed: (name, reason) => `تعذّرت معالجة ${b(name)}${reason ? `: ${b(reason)}` : '.'}`,
  stillProcessing: (name) => `لا تزال معالجة ${b(name)} جارية. سيكون جاهزًا لاحقًا.`,
  previewLabel: (name) => `معاينة ${b(name)}`,
  previewUnsupported: 'لا يستطيع هذا المتصفح تشغيل فيديو HLS.',
  previewsLabel: 'مقاطع الفيديو المرفوعة',
  emptyFile: (name) => `الملف ${b(name)} فارغ (0 بايت) ولم تتم إضافته.`,
  tooManyChunks: (name, chunks, gb) =>
    `الملف ${b(name)} كبير جدًا: سيحتاج إلى أكثر من ${chunks.toLocaleString('ar-u-nu-latn')} جزء أصغر من ${gb} غيغابايت.`,
  sessionExpired: (name) => `انتهت صلاحية جلسة رفع ${b(name)} قبل إرساله بالكامل، لذا يبدأ رفعه من جديد.`,
  singleRestarts: (name) => `يُرسَل ${b(name)} دفعة واحدة: الاستئناف يبدأ رفعه من البداية.`,
  notSameFile: (name) =>
    `${b(name)} ليس الملف الذي انقطع رفعه: الاسم والحجم نفسهما لكن المحتوى مختلف. أزِله وأضِف الملف الأصلي.`,
  addAgain: (name) => `انقطع رفع ${b(name)}. أضِف الملف نفسه مرة أخرى للمتابعة من حيث توقف.`,
  completedAfterInterruption: (name) => `اكتملت أجزاء الرفع المنقطع لـ ${b(name)} كلها: اكتمل الرفع الآن.`,
  discardedExpired: (name) =>
    `انتهت صلاحية الرفع المنقطع لـ ${b(name)} قبل اكتماله. أضِف الملف مرة أخرى لرفعه من البداية.`,
  linkSource: 'رابط',
  linkLabel: 'عنوان ملف فيديو',
  linkSubmit: 'استيراد',
  linkRefused: (url) => `${b(url)} لا يمكن استيراده: أدخِل عنوان http(s) لملف فيديو على الإنترنت.`,
  tooLong: (name, length, limit) => `مدة ${b(name)} هي ${b(length)}؛ تُقبل مقاطع الفيديو حتى ${b(limit)}.`,
  tooShort: (name, length, limit) => `مدة ${b(name)} هي ${b(length)}؛ تُقبل مقاطع الفيديو التي لا تقل عن ${b(limit)}.`,
  resolutionTooHigh: (name, resolution, limit) =>
    `دقة ${b(name)} هي ${b(resolution)}؛ تُقبل مقاطع الفيديو حتى ${b(limit)}.`,
  resolutionTooLow: (name, resolution, limit) =>
    `دقة ${b(name)} هي ${b(resolution)}؛ تُقبل مقاطع الفيديو التي لا تقل عن ${b(limit)}.`,
  unreadable: (name) => `تعذّرت قراءة ${b(name)} كفيديو، لذا لا يمكن التحقق من مدته ودقته؛ لم تتم إضافته.`,
  leaveWhileUploading: 'لا يزال الرفع جاريًا. هل تريد مغادرة الصفحة على أي حال؟',
  invalid: (attribute, value, expected) => `القيمة ${b(`${attribute}="${value}"`)} غير صالحة: ${expected}.`,
  expected: {
    sources: 'استخدم قائمة مفصولة بفواصل من files وlink وcamera وscreen',
    duration: 'استخدم مدة مثل 90s أو 10m أو 1h30m أو 01:30:00',
    resolution: 'استخدم دقة مثل 1080p أو 3840x2160',
    size: 'استخدم حجمًا مثل 100MB أو 5GB أو عددًا من البايتات',
    positiveSize: 'يجب أن يكون الحجم أكبر من 0',
    count: (max) => `استخدم عددًا صحيحًا من 1 إلى ${max}`,
    required: 'عنوان خدمة الفيديو مطلوب',
    url: 'استخدم عنوان URL مطلقًا يبدأ بـ http(s) أو مسارًا يبدأ بـ /',
    theme: 'استخدم light أو dark أو auto',
    chunkTooBig: 'يجب أن يكون كل جزء أصغر من 5GB',
    accept: 'استخدم قائمة مفصولة بفواصل من أنواع MIME ‏(video/*) والامتدادات (.mkv)',
    streamId: 'إنها مطلوبة: معرّف البث المباشر الذي تُقتطع تسجيلاته',
    token: 'عيّن السمة token-url أو الخاصية tokenProvider: يحتاج الرافع إلى رمز وصول',
  },
  errors: {
    network: 'انقطع الاتصال. تحقّق من الشبكة ثم أعِد المحاولة.',
    notAllowed: 'لا يُسمح لهذه الصفحة بالرفع الآن. أعِد تحميل الصفحة أو سجّل الدخول مرة أخرى.',
    quota: 'نفدت حصة الفيديو لهذا الحساب.',
    tooLarge: 'الملف كبير جدًا بالنسبة لخدمة الفيديو.',
    expired: 'انتهت صلاحية رابط الرفع قبل إرسال الملف. أعِد المحاولة للحصول على رابط جديد.',
    integrity: 'تلقّى التخزين بايتات تختلف عمّا أُرسل. أعِد محاولة الرفع.',
    unavailable: 'خدمة الفيديو غير متاحة الآن. أعِد المحاولة بعد قليل.',
    notConfigured: 'لم يتم إعداد الرافع (انظر الرسالة أعلاه).',
    setup: (code) => `الرافع وخدمة الفيديو لا يعملان معًا هنا (${b(code)}). أبلِغ مسؤول الموقع.`,
    other: (code) => `فشل الرفع (${b(code)}).`,
  },
  uppy: {},
};
export default ar;
