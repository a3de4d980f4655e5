// A server-sent-events reader (the WHATWG event-stream format) over a fetch body: enough for the
// gateway's stream (id, data, retry, comments), with no dependency.

export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
  retry?: number;
}

export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const decoder = new TextDecoder();
  let buffer = '';
  let frame: { id?: string; event?: string; data: string[]; retry?: number } = { data: [] };
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop() ?? ''; // an unfinished line waits for the next chunk
    for (const line of lines) {
      if (line === '') {
        if (frame.data.length || frame.id !== undefined || frame.retry !== undefined)
          yield { id: frame.id, event: frame.event, data: frame.data.join('\n'), retry: frame.retry };
        frame = { data: [] };
        continue;
      }
      if (line.startsWith(':')) continue; // a comment: the keep-alive
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') frame.data.push(value);
      else if (field === 'id' && !value.includes('\0')) frame.id = value;
      else if (field === 'event') frame.event = value;
      else if (field === 'retry' && /^\d+$/.test(value)) frame.retry = Number(value);
    }
  }
}
