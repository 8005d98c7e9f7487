import type { Strings } from './en.js';
import { isolate as b } from './isolate.js';

const ko: Strings = {
  dashboardNote: '동영상 파일: MP4, MOV, MKV, WebM, AVI, MPEG-TS 등.',
  processing: (name) => `${b(name)} 처리 중…`,
  ready: (name) => `${b(name)} 준비가 끝났습니다.`,
  failed: (name, reason) => `${b(name)}을(를) 처리하지 못했습니다${reason ? `: ${b(reason)}` : '.'}`,
  stillProcessing: (name) => `${b(name)}은(는) 아직 처리 중입니다. 나중에 준비됩니다.`,
  previewLabel: (name) => `${b(name)} 미리 보기`,
  previewUnsupported: '이 브라우저는 HLS 동영상을 재생할 수 없습니다.',
  previewsLabel: '업로드한 동영상',
  emptyFile: (name) => `${b(name)}은(는) 비어 있어(0바이트) 추가하지 않았습니다.`,
  tooManyChunks: (name, chunks, gb) =>
    `${b(name)}은(는) 너무 큽니다: ${gb}GB 미만의 조각이 ${chunks.toLocaleString('ko')}개를 넘게 필요합니다.`,
  sessionExpired: (name) => `${b(name)}의 업로드 세션이 모두 보내기 전에 만료되어, 처음부터 다시 업로드합니다.`,
  singleRestarts: (name) => `${b(name)}은(는) 한 번에 보내므로, 다시 시작하면 처음부터 보냅니다.`,
  notSameFile: (name) =>
    `${b(name)}은(는) 업로드가 중단된 그 파일이 아닙니다: 이름과 크기는 같지만 내용이 다릅니다. 제거하고 원본을 추가하세요.`,
  addAgain: (name) =>
    `${b(name)}의 업로드가 중단되었습니다. 같은 파일을 다시 추가하면 멈춘 곳부터 이어서 업로드합니다.`,
  completedAfterInterruption: (name) => `중단된 ${b(name)} 업로드에 모든 조각이 있어 이제 완료되었습니다.`,
  discardedExpired: (name) =>
    `중단된 ${b(name)} 업로드가 끝나기 전에 만료되었습니다. 파일을 다시 추가하면 처음부터 업로드합니다.`,
  linkSource: '링크',
  linkLabel: '동영상 파일 주소',
  linkSubmit: '가져오기',
  linkRefused: (url) => `${b(url)}은(는) 가져올 수 없습니다: 인터넷에 있는 동영상 파일의 http(s) 주소를 입력하세요.`,
  tooLong: (name, length, limit) => `${b(name)}의 길이는 ${length}입니다. ${limit}까지의 동영상만 받습니다.`,
  tooShort: (name, length, limit) => `${b(name)}의 길이는 ${length}입니다. ${limit} 이상의 동영상만 받습니다.`,
  resolutionTooHigh: (name, resolution, limit) =>
    `${b(name)}의 해상도는 ${resolution}입니다. ${limit}까지의 동영상만 받습니다.`,
  resolutionTooLow: (name, resolution, limit) =>
    `${b(name)}의 해상도는 ${resolution}입니다. ${limit} 이상의 동영상만 받습니다.`,
  unreadable: (name) =>
    `${b(name)}을(를) 동영상으로 읽을 수 없어 길이와 해상도를 확인할 수 없으므로 추가하지 않았습니다.`,
  leaveWhileUploading: '업로드가 아직 진행 중입니다. 그래도 페이지를 나가시겠습니까?',
  invalid: (attribute, value, expected) => `${attribute}="${value}"은(는) 올바르지 않습니다: ${expected}.`,
  expected: {
    sources: 'files, link, camera, screen을 쉼표로 구분해 쓰세요',
    duration: '90s, 10m, 1h30m, 01:30:00 같은 길이를 쓰세요',
    resolution: '1080p, 3840x2160 같은 해상도를 쓰세요',
    size: '100MB, 5GB 같은 크기나 바이트 수를 쓰세요',
    positiveSize: '크기는 0보다 커야 합니다',
    count: (max) => `1부터 ${max}까지의 정수를 쓰세요`,
    required: '동영상 서비스의 주소가 필요합니다',
    url: '절대 http(s) URL이나 /로 시작하는 경로를 쓰세요',
    theme: 'light, dark, auto 중 하나를 쓰세요',
    chunkTooBig: '각 조각은 5GB보다 작아야 합니다',
    accept: 'MIME 유형(video/*)과 확장자(.mkv)를 쉼표로 구분해 쓰세요',
    streamId: '필수입니다: 녹화를 자를 라이브 스트림의 ID',
    token: 'token-url 속성이나 tokenProvider 속성을 설정하세요: 업로더에는 액세스 토큰이 필요합니다',
  },
  errors: {
    network: '연결이 끊겼습니다. 네트워크를 확인한 뒤 다시 시도하세요.',
    notAllowed: '이 페이지는 지금 업로드할 수 없습니다. 페이지를 새로 고치거나 다시 로그인하세요.',
    quota: '이 계정의 동영상 할당량을 모두 사용했습니다.',
    tooLarge: '파일이 동영상 서비스에 비해 너무 큽니다.',
    expired: '파일을 보내기 전에 업로드 링크가 만료되었습니다. 다시 시도하면 새 링크를 받습니다.',
    integrity: '저장소가 보낸 것과 다른 바이트를 받았습니다. 다시 업로드하세요.',
    unavailable: '지금은 동영상 서비스를 사용할 수 없습니다. 잠시 후 다시 시도하세요.',
    notConfigured: '업로더가 설정되지 않았습니다(위의 메시지를 보세요).',
    setup: (code) =>
      `여기서는 업로더와 동영상 서비스가 함께 동작하지 않습니다(${code}). 사이트 관리자에게 알려 주세요.`,
    other: (code) => `업로드에 실패했습니다(${code}).`,
  },
  uppy: {},
};
export default ko;
