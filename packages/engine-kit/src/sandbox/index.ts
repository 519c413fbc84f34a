export * from './deny-proxy.js';
export * from './owned-process.js';
export * from './sandbox-env.js';
export * from './temp-home.js';
