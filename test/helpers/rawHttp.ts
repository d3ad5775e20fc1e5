import { connect, type Socket } from 'node:net';

export interface RawResponse {
  readonly status: number;
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Opens a TCP connection to an http://host:port URL, for requests no HTTP client would send. */
export const openSocket = async (url: string): Promise<Socket> => {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  return socket;
};

/** Everything the server sends until it closes the connection, parsed as one HTTP/1.1 response. */
export const readUntilClosed = (socket: Socket): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('close', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks).toString('latin1')));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });

/** Sends raw bytes on a new connection and reads the answer up to the server's close. */
export const sendRaw = async (url: string, bytes: string | Buffer): Promise<RawResponse> => {
  const socket = await openSocket(url);
  const answer = readUntilClosed(socket);
  // The server may answer and close before reading everything (a header past its limit): that is fine.
  socket.on('error', () => {});
  socket.write(bytes);
  return answer;
};

const parseResponse = (text: string): RawResponse => {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) {
    throw new Error(`no complete HTTP response: ${JSON.stringify(text.slice(0, 200))}`);
  }
  const [statusLine = '', ...headerLines] = text.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers, body: text.slice(end + 4) };
};
