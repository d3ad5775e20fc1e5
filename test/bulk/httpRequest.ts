import { request as httpRequest } from 'node:http';

export interface HttpAnswer {
  readonly status: number;
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The body's bytes as they came over the wire: never decoded (a coded body stays coded). */
  readonly bytes: Buffer;
  /** The body parsed as JSON when it is JSON text, for error envelopes. */
  readonly json: any;
}

/** One request over real HTTP with node:http, which (unlike fetch) neither asks for nor decodes a coding. */
export const sendRequest = (
  url: string,
  options: { readonly method?: string; readonly headers?: Record<string, string>; readonly body?: string } = {},
): Promise<HttpAnswer> =>
  new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () => {
        const bytes = Buffer.concat(chunks);
        let json: unknown;
        try {
          json = JSON.parse(bytes.toString('utf8'));
        } catch {
          json = undefined;
        }
        const headers: Record<string, string | undefined> = {};
        for (const [name, value] of Object.entries(response.headers)) {
          headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        resolve({ status: response.statusCode ?? 0, headers, bytes, json });
      });
    });
    outgoing.once('error', reject);
    outgoing.end(options.body);
  });

