import type { ClipperStrings } from './clipper.js';
import { isolate as b } from './isolate.js';
import uploader from './ja.js';

const ja: ClipperStrings = {
  invalid: uploader.invalid,
  expected: uploader.expected,
  recordingsLabel: 'この配信の録画',
  noRecordings: 'まだ録画はありません。録画は配信の開始から数秒後に表示されます。',
  status: { live: 'ライブ中', stopped: '停止', complete: '完了' },
  recording: (status, start, length, exports) => `${status}: ${start}、${length} · ${exports}`,
  exportsCount: (n) => `エクスポート ${n} 件`,
  playerLabel: '録画',
  timelineLabel: '変換する範囲',
  start: '開始',
  end: '終了',
  length: (seconds) => `${seconds} 秒`,
  lengthLabel: '長さ',
  liveEdge: 'ライブの現在位置',
  keysHelp:
    '矢印キーでつまみを 1 秒、Shift+矢印キーで開始位置を 1 フレーム、Page Up / Page Down で 10 秒動かします。I と O で開始と終了を再生位置に設定します。',
  timecodeInvalid: (field, text) =>
    `${field}: ${b(text)} はタイムコードではありません。時:分:秒.ミリ秒の形式 (例: 00:01:05.250) で入力してください。`,
  preview: '範囲をループ再生',
  convert: '動画に変換',
  convertWhole: '録画全体を変換',
  wholeWaits: '録画全体は配信の終了後に変換できます。範囲は今すぐ変換できます。',
  requested: (length, start) => `${start} から ${length}を変換しています…`,
  entryStatus: { PROCESSING: '変換中…', EXPORTED: '完了', FAILED: '失敗' },
  entry: (start, length, status) => `${start}、${length}: ${status}`,
  exportsLabel: 'この録画の変換',
  failed: (reason) => `変換に失敗しました${reason ? `: ${b(reason)}` : '。'}`,
  refused: (reason) => `動画サービスが変換を拒否しました: ${b(reason)}`,
  resultLabel: '新しい動画',
  videosLabel: 'この配信から作成した動画',
  noVideos: 'まだありません。',
  videoStatus: { waiting: 'ファイル待ち', processing: '処理中', ready: '準備完了', failed: '失敗' },
  video: (length, status) => `${length}、${status}`,
  play: (length, made) => `${made}に作成した${length}の動画を再生`,
  deleted: 'この録画は削除されたため (録画の保存期間は 3 日間です)、クリップできなくなりました。',
  unreachable: '現在、動画サービスに接続できません。接続できるようになるとリストが更新されます。',
  unplayable: uploader.previewUnsupported,
};
export default ja;
