/**
 * `video-uploader/react`: <VideoUploader> for React, made with @lit/react from the element class itself, so its
 * props are the element's properties (typed) and each event is an `on…` prop (`onVideoReady`, `onUploadError`, …)
 * whose handler gets the typed CustomEvent. It renders the tag on the server too (react-dom/server).
 */
import { createComponent, type EventName } from '@lit/react';
import * as React from 'react';
import { VIDEO_UPLOADER_EVENTS, type VideoUploaderEventDetails, type VideoUploaderEventName } from './events.js';
import { VideoUploader as VideoUploaderElement } from './video-uploader.js';

/** `video-ready` → `onVideoReady`. */
type EventProp<N extends string> = N extends `${infer A}-${infer B}` ? EventProp<`${A}${Capitalize<B>}`> : N;
type EventProps = {
  [N in VideoUploaderEventName as `on${Capitalize<EventProp<N>>}`]: EventName<
    CustomEvent<VideoUploaderEventDetails[N]>
  >;
};

const events = Object.fromEntries(
  VIDEO_UPLOADER_EVENTS.map((name) => [
    `on${name.replace(/(^|-)(\w)/g, (_, _dash: string, c: string) => c.toUpperCase())}`,
    name,
  ]),
) as EventProps;

export const VideoUploader = createComponent({
  tagName: 'video-uploader',
  elementClass: VideoUploaderElement,
  react: React,
  events,
  displayName: 'VideoUploader',
});

export type { VideoUploaderEventDetails, VideoUploaderEventName } from './events.js';
