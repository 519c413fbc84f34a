export const BUILTIN_PROVIDER = 'builtin';
