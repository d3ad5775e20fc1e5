import http from 'node:http';

export interface SseRead {
  /** Every byte of the body after the opening comment, as text. */
  readonly raw: string;
  readonly events: readonly { id: number; data: string }[];
  /** The `event: end` message's data, when it came. */
  readonly end: string | undefined;
  readonly status: number;
  readonly contentType: string | undefined;
}

/**
 * Reads GET /v1/streams/{id}/events over real HTTP until the stream ends, or until `stopAfter` events
 * (then it hangs up, as a reader that leaves).
 */
export const readSse = (url: string, key: string, options: { lastEventId?: number; stopAfter?: number; onProgress?: (messages: number) => void } = {}): Promise<SseRead> =>
  new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { Authorization: `Bearer ${key}`, ...(options.lastEventId === undefined ? {} : { 'Last-Event-ID': String(options.lastEventId) }) } }, (response) => {
      let text = '';
      const finish = (): void => {
        const raw = text.startsWith(': stream\n\n') ? text.slice(': stream\n\n'.length) : text;
        const events: { id: number; data: string }[] = [];
        let end: string | undefined;
        // The last block is empty after a whole message, or a message cut short by the hang-up.
        const blocks = raw.split('\n\n');
        blocks.pop();
        for (const block of blocks) {
          const lines = block.split('\n');
          const id = lines.find((line) => line.startsWith('id: '));
          const data = lines.find((line) => line.startsWith('data: '));
          if (lines.includes('event: end') && data !== undefined) end = data.slice(6);
          else if (id !== undefined && data !== undefined) events.push({ id: Number(id.slice(4)), data: data.slice(6) });
        }
        resolve({ raw, events, end, status: response.statusCode ?? 0, contentType: response.headers['content-type'] });
      };
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
        options.onProgress?.(text.split('\nid: ').length - 1);
        if (options.stopAfter !== undefined && (text.match(/\nid: /g)?.length ?? 0) + (text.startsWith('id: ') ? 1 : 0) >= options.stopAfter) {
          request.destroy();
          finish();
        }
      });
      response.on('end', finish);
      response.on('error', () => finish());
    });
    request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
  });
