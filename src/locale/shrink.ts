import { isolate as b } from './isolate.js';

/**
 * The sentences of shrinking and trimming (`max-upload-resolution`, `trim`: issue 31) in every language of the
 * element. They load with the shrinking code (src/shrink), so a page that sets neither attribute downloads none of
 * them; the element's `locale` property overrides any of them as it does the others (flat keys, no merge of its own).
 */
export const shrinkEn = {
  shrinkLegend: 'Send this video as',
  shrinkOriginal: 'Original',
  /** A choice and the time it takes: `1080p · about 4 min`. */
  shrinkChoice: (choice: string, time: string) => `${choice} · about ${time}`,
  shrinkMeasuring: 'Measuring this device and the connection…',
  shrinkAsIs: 'This browser cannot re-encode this video: it is sent as it is.',
  /** <video-trim-editor>: the part of a picked video to send (`trim`). Lengths as `tooLong` has them. */
  trimLabel: 'Part of the video to keep',
  trimStart: 'Start of the part to keep',
  trimEnd: 'End of the part to keep',
  trimKeys:
    'Arrows move a thumb 1 s, Shift+arrows one frame, Page Up and Page Down 10 s, Home and End to the ends; I and O set the start and the end at the playhead.',
  trimKeeps: (kept: string, total: string) => `Keeps ${kept} of ${total}`,
};

export type ShrinkStrings = typeof shrinkEn;

const LANGUAGES: Record<string, ShrinkStrings> = {
  en: shrinkEn,
  ar: {
    shrinkLegend: 'إرسال هذا الفيديو بصيغة',
    shrinkOriginal: 'الأصلي',
    shrinkChoice: (choice, time) => `${choice} · نحو ${time}`,
    shrinkMeasuring: 'جارٍ قياس هذا الجهاز والاتصال…',
    shrinkAsIs: 'لا يستطيع هذا المتصفح إعادة ترميز هذا الفيديو: سيُرسل كما هو.',
    trimLabel: 'الجزء المراد الاحتفاظ به من الفيديو',
    trimStart: 'بداية الجزء المراد الاحتفاظ به',
    trimEnd: 'نهاية الجزء المراد الاحتفاظ به',
    trimKeys:
      'تنقل مفاتيح الأسهم المقبض ثانية واحدة، ومع Shift إطارًا واحدًا، وينقله Page Up وPage Down عشر ثوانٍ، وHome وEnd إلى الطرفين؛ ويضع المفتاحان I وO البداية والنهاية عند موضع التشغيل.',
    trimKeeps: (kept, total) => `يُحتفظ بـ${b(kept)} من ${b(total)}`,
  },
  de: {
    shrinkLegend: 'Dieses Video senden als',
    shrinkOriginal: 'Original',
    shrinkChoice: (choice, time) => `${choice} · etwa ${time}`,
    shrinkMeasuring: 'Gerät und Verbindung werden gemessen…',
    shrinkAsIs: 'Dieser Browser kann dieses Video nicht neu kodieren: Es wird unverändert gesendet.',
    trimLabel: 'Teil des Videos, der bleibt',
    trimStart: 'Anfang des Teils, der bleibt',
    trimEnd: 'Ende des Teils, der bleibt',
    trimKeys:
      'Pfeiltasten verschieben einen Regler um 1 s, Umschalt+Pfeiltasten um ein Einzelbild, Bild↑ und Bild↓ um 10 s, Pos1 und Ende an die Enden; I und O setzen Anfang und Ende auf die Abspielposition.',
    trimKeeps: (kept, total) => `Behält ${kept} von ${total}`,
  },
  es: {
    shrinkLegend: 'Enviar este vídeo como',
    shrinkOriginal: 'Original',
    shrinkChoice: (choice, time) => `${choice} · unos ${time}`,
    shrinkMeasuring: 'Midiendo este dispositivo y la conexión…',
    shrinkAsIs: 'Este navegador no puede recodificar este vídeo: se envía tal cual.',
    trimLabel: 'Parte del vídeo que se conserva',
    trimStart: 'Inicio de la parte que se conserva',
    trimEnd: 'Fin de la parte que se conserva',
    trimKeys:
      'Las flechas mueven un control 1 s; Mayús+flechas, un fotograma; Re Pág y Av Pág, 10 s; Inicio y Fin, a los extremos; I y O fijan el inicio y el fin en el cabezal de reproducción.',
    trimKeeps: (kept, total) => `Conserva ${kept} de ${total}`,
  },
  fr: {
    shrinkLegend: 'Envoyer cette vidéo en',
    shrinkOriginal: 'Originale',
    shrinkChoice: (choice, time) => `${choice} · environ ${time}`,
    shrinkMeasuring: 'Mesure de cet appareil et de la connexion…',
    shrinkAsIs: 'Ce navigateur ne peut pas réencoder cette vidéo : elle est envoyée telle quelle.',
    trimLabel: 'Partie de la vidéo à garder',
    trimStart: 'Début de la partie à garder',
    trimEnd: 'Fin de la partie à garder',
    trimKeys:
      'Les flèches déplacent un curseur de 1 s, Maj+flèches d’une image, Pg préc et Pg suiv de 10 s, Début et Fin jusqu’aux extrémités ; I et O placent le début et la fin sur la tête de lecture.',
    trimKeeps: (kept, total) => `Garde ${kept} sur ${total}`,
  },
  he: {
    shrinkLegend: 'לשלוח את הסרטון הזה בתור',
    shrinkOriginal: 'מקור',
    shrinkChoice: (choice, time) => `${choice} · כ־${time}`,
    shrinkMeasuring: 'מודדים את המכשיר ואת החיבור…',
    shrinkAsIs: 'הדפדפן הזה לא יכול לקודד מחדש את הסרטון: הוא נשלח כמו שהוא.',
    trimLabel: 'החלק של הסרטון שיישמר',
    trimStart: 'התחלת החלק שיישמר',
    trimEnd: 'סוף החלק שיישמר',
    trimKeys:
      'מקשי החיצים מזיזים ידית בשנייה אחת, Shift עם החיצים מזיז בפריים אחד, Page Up ו־Page Down מזיזים ב־10 שניות, ו־Home ו־End מזיזים לקצוות; I ו־O קובעים את ההתחלה והסוף במיקום ההפעלה.',
    trimKeeps: (kept, total) => `נשמרים ${b(kept)} מתוך ${b(total)}`,
  },
  it: {
    shrinkLegend: 'Invia questo video come',
    shrinkOriginal: 'Originale',
    shrinkChoice: (choice, time) => `${choice} · circa ${time}`,
    shrinkMeasuring: 'Misurazione del dispositivo e della connessione…',
    shrinkAsIs: "Questo browser non può ricodificare questo video: viene inviato così com'è.",
    trimLabel: 'Parte del video da tenere',
    trimStart: 'Inizio della parte da tenere',
    trimEnd: 'Fine della parte da tenere',
    trimKeys:
      'Le frecce spostano un cursore di 1 s, Maiusc+frecce di un fotogramma, PagSu e PagGiù di 10 s, Home e Fine agli estremi; I e O impostano inizio e fine sulla testina di riproduzione.',
    trimKeeps: (kept, total) => `Tiene ${kept} di ${total}`,
  },
  ja: {
    shrinkLegend: 'この動画の送信形式',
    shrinkOriginal: 'オリジナル',
    shrinkChoice: (choice, time) => `${choice} · 約${time}`,
    shrinkMeasuring: 'この端末と接続を測定しています…',
    shrinkAsIs: 'このブラウザーではこの動画を再エンコードできません。そのまま送信します。',
    trimLabel: '残す部分',
    trimStart: '残す部分の開始',
    trimEnd: '残す部分の終了',
    trimKeys:
      '矢印キーでつまみを 1 秒、Shift+矢印キーで 1 フレーム、Page Up / Page Down で 10 秒、Home / End で端まで動かします。I と O で開始と終了を再生位置に設定します。',
    trimKeeps: (kept, total) => `${total} のうち ${kept} を残します`,
  },
  ko: {
    shrinkLegend: '이 동영상을 보낼 형식',
    shrinkOriginal: '원본',
    shrinkChoice: (choice, time) => `${choice} · 약 ${time}`,
    shrinkMeasuring: '이 기기와 연결을 측정하는 중…',
    shrinkAsIs: '이 브라우저는 이 동영상을 다시 인코딩할 수 없습니다. 그대로 보냅니다.',
    trimLabel: '남길 부분',
    trimStart: '남길 부분의 시작',
    trimEnd: '남길 부분의 끝',
    trimKeys:
      '화살표 키는 핸들을 1초, Shift+화살표 키는 1프레임, Page Up과 Page Down은 10초씩 옮기고, Home과 End는 양 끝으로 옮깁니다. I와 O는 재생 위치를 시작과 끝으로 정합니다.',
    trimKeeps: (kept, total) => `남길 길이: ${kept} / ${total}`,
  },
  nl: {
    shrinkLegend: 'Deze video verzenden als',
    shrinkOriginal: 'Origineel',
    shrinkChoice: (choice, time) => `${choice} · ongeveer ${time}`,
    shrinkMeasuring: 'Dit apparaat en de verbinding worden gemeten…',
    shrinkAsIs: 'Deze browser kan deze video niet opnieuw coderen: hij wordt verzonden zoals hij is.',
    trimLabel: 'Deel van de video dat blijft',
    trimStart: 'Begin van het deel dat blijft',
    trimEnd: 'Einde van het deel dat blijft',
    trimKeys:
      'De pijltjestoetsen verplaatsen een schuifknop 1 s, Shift+pijltjestoetsen één frame, Page Up en Page Down 10 s, Home en End naar de uiteinden; I en O zetten begin en einde op de afspeelkop.',
    trimKeeps: (kept, total) => `Houdt ${kept} van ${total}`,
  },
  pt: {
    shrinkLegend: 'Enviar este vídeo como',
    shrinkOriginal: 'Original',
    shrinkChoice: (choice, time) => `${choice} · cerca de ${time}`,
    shrinkMeasuring: 'Medindo este dispositivo e a conexão…',
    shrinkAsIs: 'Este navegador não consegue recodificar este vídeo: ele é enviado como está.',
    trimLabel: 'Parte do vídeo a manter',
    trimStart: 'Início da parte a manter',
    trimEnd: 'Fim da parte a manter',
    trimKeys:
      'As setas movem um marcador 1 s, Shift+setas um quadro, Page Up e Page Down 10 s, Home e End até as pontas; I e O definem o início e o fim no indicador de reprodução.',
    trimKeeps: (kept, total) => `Mantém ${kept} de ${total}`,
  },
  ru: {
    shrinkLegend: 'Отправить это видео как',
    shrinkOriginal: 'Оригинал',
    shrinkChoice: (choice, time) => `${choice} · около ${time}`,
    shrinkMeasuring: 'Измеряем устройство и соединение…',
    shrinkAsIs: 'Этот браузер не может перекодировать это видео: оно будет отправлено как есть.',
    trimLabel: 'Часть видео, которая останется',
    trimStart: 'Начало части, которая останется',
    trimEnd: 'Конец части, которая останется',
    trimKeys:
      'Стрелки сдвигают ползунок на 1 с, Shift+стрелки — на один кадр, Page Up и Page Down — на 10 с, Home и End — к краям; I и O ставят начало и конец в позицию воспроизведения.',
    trimKeeps: (kept, total) => `Останется ${kept} из ${total}`,
  },
  zh: {
    shrinkLegend: '以此方式发送该视频',
    shrinkOriginal: '原始文件',
    shrinkChoice: (choice, time) => `${choice} · 约${time}`,
    shrinkMeasuring: '正在测量此设备和网络连接…',
    shrinkAsIs: '此浏览器无法重新编码该视频：将按原样发送。',
    trimLabel: '要保留的部分',
    trimStart: '要保留部分的开始',
    trimEnd: '要保留部分的结束',
    trimKeys:
      '方向键将滑块移动 1 秒，Shift+方向键移动一帧，Page Up 和 Page Down 移动 10 秒，Home 和 End 移到两端；按 I 和 O 可将开始点和结束点设在播放头位置。',
    trimKeeps: (kept, total) => `保留 ${kept}，共 ${total}`,
  },
};

/**
 * The table for the language `lang` (its primary tag, as our other tables: `pt-BR` → `pt`; English where there is
 * none), with whatever of it the element's `locale` property overrides (`strings`: the element's current sentences).
 */
export function shrinkStrings(lang: string, strings: object): ShrinkStrings {
  // localize.ts's `primary`, written out: importing it from this lazy chunk splits localize.ts out of the first load
  // into a chunk of its own, 0.5 KB more gzipped (measured).
  const table = LANGUAGES[lang.toLowerCase().split(/[-_]/)[0]!] ?? shrinkEn;
  const overrides = Object.entries(strings).filter(([key]) => key in shrinkEn);
  return { ...table, ...Object.fromEntries(overrides) } as ShrinkStrings;
}
