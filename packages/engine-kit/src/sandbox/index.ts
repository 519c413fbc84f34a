export * from './deny-proxy';
export * from './owned-process';
export * from './sandbox-env';
export * from './temp-home';
