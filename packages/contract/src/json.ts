/** Any JSON value. Native payloads and tool inputs are carried as JSON, never as class instances. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
