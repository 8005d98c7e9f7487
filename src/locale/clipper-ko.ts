import type { ClipperStrings } from './clipper.js';
import { isolate as b } from './isolate.js';
import uploader from './ko.js';

const ko: ClipperStrings = {
  invalid: uploader.invalid,
  expected: uploader.expected,
  recordingsLabel: '이 스트림의 녹화',
  noRecordings: '아직 녹화가 없습니다. 녹화는 스트림이 시작되고 몇 초 뒤에 나타납니다.',
  status: { live: '라이브', stopped: '중지됨', complete: '완료됨' },
  recording: (status, start, length, exports) => `${status}: ${start}, ${length} · ${exports}`,
  exportsCount: (n) => `내보내기 ${n}건`,
  playerLabel: '녹화',
  timelineLabel: '변환할 구간',
  start: '시작',
  end: '끝',
  length: (seconds) => `${seconds}초`,
  lengthLabel: '길이',
  liveEdge: '라이브 현재 위치',
  keysHelp:
    '화살표 키는 핸들을 1초, Shift+화살표 키는 시작을 1프레임, Page Up과 Page Down은 10초씩 옮깁니다. I와 O는 재생 위치를 시작과 끝으로 정합니다.',
  timecodeInvalid: (field, text) =>
    `${field}: ${b(text)}은(는) 타임코드가 아닙니다. 00:01:05.250처럼 시:분:초.밀리초 형식으로 입력하세요.`,
  preview: '구간 반복 재생',
  convert: '동영상으로 변환',
  convertWhole: '녹화 전체 변환',
  wholeWaits: '녹화 전체는 스트림이 끝난 뒤에 변환할 수 있습니다. 구간은 지금 바로 변환할 수 있습니다.',
  requested: (length, start) => `${start}부터 ${length} 변환 중…`,
  entryStatus: { PROCESSING: '변환 중…', EXPORTED: '완료', FAILED: '실패' },
  entry: (start, length, status) => `${start}, ${length}: ${status}`,
  exportsLabel: '이 녹화의 변환',
  failed: (reason) => `변환에 실패했습니다${reason ? `: ${b(reason)}` : '.'}`,
  refused: (reason) => `동영상 서비스가 변환을 거부했습니다: ${b(reason)}`,
  resultLabel: '새 동영상',
  videosLabel: '이 스트림으로 만든 동영상',
  noVideos: '아직 없습니다.',
  videoStatus: { waiting: '파일 대기 중', processing: '처리 중', ready: '준비됨', failed: '실패' },
  video: (length, status) => `${length}, ${status}`,
  play: (length, made) => `${made}에 만든 ${length} 동영상 재생`,
  deleted: '이 녹화는 삭제되어(녹화는 3일 동안 보관됩니다) 더 이상 자를 수 없습니다.',
  unreachable: '지금은 동영상 서비스에 연결할 수 없습니다. 연결되면 목록이 업데이트됩니다.',
  unplayable: uploader.previewUnsupported,
};
export default ko;
