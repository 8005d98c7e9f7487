/**
 * The MediaInfo fields the spec's `mediainfo` shows of each track. A module of their own, without TypeBox: the worker
 * that reads a file (service/processing/mediainfo-worker.ts) starts once per file, and loading the contract there cost
 * 0.5 s of CPU per start, about as much as reading a 10 s 720p MP4.
 */
export const GENERAL_FIELDS = [
  'VideoCount',
  'AudioCount',
  'FileExtension',
  'Format',
  'FileSize',
  'Duration',
  'OverallBitRate_Mode',
  'OverallBitRate',
  'FrameRate',
] as const;
export const VIDEO_FIELDS = [
  'Format',
  'Format_Profile',
  'Format_Level',
  'CodecID',
  'BitRate',
  'Width',
  'Height',
  'DisplayAspectRatio_String',
  'FrameRate_Mode',
  'FrameRate',
] as const;
export const AUDIO_FIELDS = ['Format', 'CodecID', 'BitRate', 'Channels', 'ChannelPositions', 'SamplingRate'] as const;
