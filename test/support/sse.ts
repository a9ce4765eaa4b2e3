/** A small Server-Sent Events reader over fetch, for tests: frames as they arrive, and waiting for one. */
export interface Frame {
  event: string;
  id?: string;
  data: any;
  /** Date.now() when the frame was read. */
  at: number;
}

export interface SseStream {
  status: number;
  frames: Frame[];
  /** Resolves with the first frame (from the start) matching `pred`; rejects when the stream ends first. */
  until(pred: (f: Frame) => boolean, timeoutMs?: number): Promise<Frame>;
  /** Resolves when the server has closed the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  const frames: Frame[] = [];
  let closed = false;
  const waiters = new Set<() => void>();
  const wakeAll = () => [...waiters].forEach((w) => w());
  const ended = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let i;
        while ((i = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          const frame: Frame = { event: 'message', data: undefined, at: Date.now() };
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith(':') || !line) continue;
            const c = line.indexOf(':');
            const field = line.slice(0, c);
            const value = line.slice(c + 1).replace(/^ /, '');
            if (field === 'id') frame.id = value;
            else if (field === 'event') frame.event = value;
            else if (field === 'data') data += value;
          }
          if (!data) continue;
          frame.data = JSON.parse(data);
          frames.push(frame);
          wakeAll();
        }
      }
    } catch {
      // aborted by close()
    } finally {
      closed = true;
      wakeAll();
    }
  })();
  return {
    status: res.status,
    frames,
    ended,
    close: () => controller.abort(),
    until(pred, timeoutMs = 30_000) {
      return new Promise<Frame>((resolve, reject) => {
        const timer = setTimeout(() => finish(new Error(`no matching SSE frame within ${timeoutMs} ms`)), timeoutMs);
        const finish = (err?: Error, frame?: Frame) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (err) reject(err);
          else resolve(frame!);
        };
        const check = () => {
          const found = frames.find(pred);
          if (found) finish(undefined, found);
          else if (closed) finish(new Error('the stream ended without a matching frame'));
        };
        waiters.add(check);
        check();
      });
    },
  };
}
