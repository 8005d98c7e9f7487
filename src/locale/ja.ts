import type { Strings } from './en.js';
import { isolate as b } from './isolate.js';

const ja: Strings = {
  dashboardNote: '動画ファイル: MP4、MOV、MKV、WebM、AVI、MPEG-TS など。',
  processing: (name) => `${b(name)} を処理しています…`,
  ready: (name) => `${b(name)} の準備ができました。`,
  failed: (name, reason) => `${b(name)} を処理できませんでした${reason ? `：${b(reason)}` : '。'}`,
  stillProcessing: (name) => `${b(name)} はまだ処理中です。後で準備ができます。`,
  previewLabel: (name) => `${b(name)} のプレビュー`,
  previewUnsupported: 'このブラウザーは HLS 動画を再生できません。',
  previewsLabel: 'アップロードした動画',
  emptyFile: (name) => `${b(name)} は空 (0 バイト) のため追加されませんでした。`,
  tooManyChunks: (name, chunks, gb) =>
    `${b(name)} は大きすぎます: ${gb} GB 未満のチャンクが ${chunks.toLocaleString('ja')} 個を超えて必要になります。`,
  sessionExpired: (name) =>
    `${b(name)} のアップロードセッションがすべて送信される前に期限切れになったため、最初からアップロードし直します。`,
  singleRestarts: (name) => `${b(name)} は一括で送信されます: 再開すると最初からやり直しになります。`,
  notSameFile: (name) =>
    `${b(name)} は中断されたアップロードのファイルではありません (名前とサイズは同じで内容が異なります)。削除して元のファイルを追加してください。`,
  addAgain: (name) =>
    `${b(name)} のアップロードが中断されました。同じファイルをもう一度追加すると、止まったところから続けます。`,
  completedAfterInterruption: (name) =>
    `中断された ${b(name)} のアップロードはすべての部分がそろっていたため、完了しました。`,
  discardedExpired: (name) =>
    `中断された ${b(name)} のアップロードは完了前に期限切れになりました。ファイルをもう一度追加すると最初からアップロードします。`,
  linkSource: 'リンク',
  linkLabel: '動画ファイルのアドレス',
  linkSubmit: 'インポート',
  linkRefused: (url) =>
    `${b(url)} はインポートできません: インターネット上の動画ファイルの http(s) アドレスを指定してください。`,
  tooLong: (name, length, limit) => `${b(name)} の長さは ${length} です。${limit} までの動画を受け付けます。`,
  tooShort: (name, length, limit) => `${b(name)} の長さは ${length} です。${limit} 以上の動画を受け付けます。`,
  resolutionTooHigh: (name, resolution, limit) =>
    `${b(name)} の解像度は ${resolution} です。${limit} までの動画を受け付けます。`,
  resolutionTooLow: (name, resolution, limit) =>
    `${b(name)} の解像度は ${resolution} です。${limit} 以上の動画を受け付けます。`,
  unreadable: (name) => `${b(name)} を動画として読み取れないため、長さと解像度を確認できません。追加されませんでした。`,
  leaveWhileUploading: 'アップロードがまだ実行中です。このページを離れますか?',
  invalid: (attribute, value, expected) => `${attribute}="${value}" は無効です: ${expected}。`,
  expected: {
    sources: 'files、link、camera、screen をカンマ区切りで指定してください',
    duration: '90s、10m、1h30m、01:30:00 のような長さを指定してください',
    resolution: '1080p や 3840x2160 のような解像度を指定してください',
    size: '100MB、5GB のようなサイズ、またはバイト数を指定してください',
    positiveSize: 'サイズは 0 より大きくする必要があります',
    count: (max) => `1 から ${max} までの整数を指定してください`,
    required: '動画サービスのアドレスは必須です',
    url: '絶対 http(s) URL、または / で始まるパスを指定してください',
    theme: 'light、dark、auto のいずれかを指定してください',
    chunkTooBig: '各チャンクは 5GB 未満にする必要があります',
    accept: 'MIME タイプ (video/*) と拡張子 (.mkv) をカンマ区切りで指定してください',
    streamId: '必須です: クリップするライブ配信の ID',
    token: 'token-url 属性か tokenProvider プロパティを設定してください: アップローダーにはアクセストークンが必要です',
  },
  errors: {
    network: '接続が切れました。ネットワークを確認して、もう一度お試しください。',
    notAllowed:
      'このページは現在アップロードを許可されていません。ページを再読み込みするか、もう一度サインインしてください。',
    quota: 'このアカウントの動画の割り当てを使い切りました。',
    tooLarge: 'ファイルが動画サービスには大きすぎます。',
    expired: 'ファイルの送信前にアップロードリンクの期限が切れました。もう一度試すと新しいリンクを取得します。',
    integrity: 'ストレージが受け取ったバイトが送信したものと異なります。もう一度アップロードしてください。',
    unavailable: '動画サービスは現在利用できません。しばらくしてからもう一度お試しください。',
    notConfigured: 'アップローダーが設定されていません (上のメッセージを参照してください)。',
    setup: (code) =>
      `このサイトではアップローダーと動画サービスが連携できません (${code})。サイトの管理者に連絡してください。`,
    other: (code) => `アップロードに失敗しました (${code})。`,
  },
  uppy: {},
};
export default ja;
