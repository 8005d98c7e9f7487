import type { ClipperStrings } from './clipper.js';
import { isolate as b } from './isolate.js';
import uploader from './zh.js';

const zh: ClipperStrings = {
  invalid: uploader.invalid,
  expected: uploader.expected,
  recordingsLabel: '此直播的录像',
  noRecordings: '还没有录像。直播开始几秒后会出现录像。',
  status: { live: '直播中', stopped: '已停止', complete: '已完成' },
  recording: (status, start, length, exports) => `${status}：${start}，${length} · ${exports}`,
  exportsCount: (n) => `${n} 次导出`,
  playerLabel: '录像',
  timelineLabel: '要转换的片段',
  start: '开始',
  end: '结束',
  length: (seconds) => `${seconds} 秒`,
  lengthLabel: '时长',
  liveEdge: '直播当前位置',
  keysHelp:
    '方向键将滑块移动 1 秒，Shift+方向键将开始点移动一帧，Page Up 和 Page Down 移动 10 秒；按 I 和 O 可将开始点和结束点设在播放头位置。',
  timecodeInvalid: (field, text) => `${field}：${b(text)} 不是时间码。请使用“时:分:秒.毫秒”格式，例如 00:01:05.250。`,
  preview: '循环预览片段',
  convert: '转换为视频',
  convertWhole: '转换整个录像',
  wholeWaits: '直播结束后才能转换整个录像；片段现在就可以转换。',
  requested: (length, start) => `正在转换从 ${start} 开始的 ${length}…`,
  entryStatus: { PROCESSING: '正在转换…', EXPORTED: '已就绪', FAILED: '失败' },
  entry: (start, length, status) => `${start}，${length}：${status}`,
  exportsLabel: '此录像的转换',
  failed: (reason) => `转换失败${reason ? `：${b(reason)}` : '。'}`,
  refused: (reason) => `视频服务拒绝了转换：${b(reason)}`,
  resultLabel: '新视频',
  videosLabel: '由此直播生成的视频',
  noVideos: '暂无。',
  videoStatus: { waiting: '等待文件', processing: '处理中', ready: '已就绪', failed: '失败' },
  video: (length, status) => `${length}，${status}`,
  play: (length, made) => `播放 ${made} 创建的${length}视频`,
  deleted: '此录像已被删除（录像保留 3 天），因此无法再剪辑。',
  unreachable: '目前无法连接视频服务；恢复连接后列表会自动更新。',
  unplayable: uploader.previewUnsupported,
};
export default zh;
