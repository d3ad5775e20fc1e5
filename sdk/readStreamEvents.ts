import { BssApiError } from './BssApiError.ts';
import { BssConnectionError } from './BssConnectionError.ts';
import type { SimulationRecord } from './SimulationRecord.ts';

/** One delivered event of a live stream (docs/streams.md, "The envelope"). */
export interface StreamEnvelope {
  readonly position: number;
  readonly record: SimulationRecord;
  readonly delay_ms: number;
  readonly duplicate: boolean;
}

export interface StreamEventsOptions {
  /** Resume after this position (what `Last-Event-ID` says). */
  readonly lastEventId?: number;
  readonly signal?: AbortSignal;
  /** Reconnections in a row without a new event before giving up (default 5). */
  readonly maxReconnects?: number;
}

/**
 * A stream's envelopes over Server-Sent Events, in order, until `event: end`. A connection that breaks is
 * opened again with `Last-Event-ID` set to the last position received, so the events go on exactly where
 * they stopped (the service answers byte-identically from any position).
 */
export async function* readStreamEvents(
  get: (headers: Record<string, string>) => Promise<Response>,
  url: string,
  options: StreamEventsOptions = {},
): AsyncGenerator<StreamEnvelope, void> {
  let last = options.lastEventId ?? 0;
  let failures = 0;
  for (;;) {
    let response: Response;
    try {
      response = await get({ Accept: 'text/event-stream', ...(last > 0 ? { 'Last-Event-ID': String(last) } : {}) });
    } catch (error) {
      if (options.signal?.aborted === true || ++failures > (options.maxReconnects ?? 5)) throw error;
      continue;
    }
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as { error?: { message?: string; details?: { code?: string } } };
      throw new BssApiError({
        message: body.error?.message ?? `HTTP ${response.status}`,
        status: response.status,
        code: body.error?.details?.code ?? 'unexpected_response',
        requestId: response.headers.get('x-request-id') ?? undefined,
      });
    }
    let buffer = '';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const message = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          cut = buffer.indexOf('\n\n');
          const lines = message.split('\n');
          const data = lines.find((line) => line.startsWith('data: '))?.slice(6);
          if (data === undefined) continue;
          if (lines.includes('event: end')) return;
          const envelope = JSON.parse(data) as StreamEnvelope;
          last = envelope.position;
          failures = 0;
          yield envelope;
        }
      }
    } catch (error) {
      if (options.signal?.aborted === true) throw error;
      if (++failures > (options.maxReconnects ?? 5)) throw new BssConnectionError(url, error, 'cut_short');
      continue;
    }
    // The body ended without `event: end` (the process serving it went away): read on from `last`.
    if (++failures > (options.maxReconnects ?? 5)) throw new BssConnectionError(url, new Error('the event stream ended early'), 'cut_short');
  }
}
