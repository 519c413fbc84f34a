/**
 * Every HTTP answer the fault clients got, by status; a request that got no answer at all (connection
 * refused or reset: a process that died) counts under 0.
 */
export class HttpTally {
  readonly byStatus = new Map<number, number>();

  private note(status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }

  async request(url: string, init: RequestInit = {}): Promise<{ status: number; json: unknown }> {
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
    } catch {
      this.note(0);
      return { status: 0, json: null };
    }
    this.note(res.status);
    const text = await res.text().catch(() => '');
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    return { status: res.status, json };
  }

  post(url: string, body: unknown, headers: Record<string, string> = {}) {
    return this.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  }

  /** 5xx answers other than 503 (a 503 with Retry-After is the documented answer during an outage). */
  serverErrorsBut503(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [status, n] of this.byStatus) if (status >= 500 && status !== 503) out[status] = n;
    return out;
  }

  count(status: number): number {
    return this.byStatus.get(status) ?? 0;
  }
}
