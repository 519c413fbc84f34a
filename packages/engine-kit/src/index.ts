export * from './artifact';
export * from './audit/index';
export * from './driver';
export * from './harness-frame';
export * from './native-frame';
export * from './sandbox/index';
export * from './translate/index';
export * from './translator';
