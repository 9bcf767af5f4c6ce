import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { LogFollow } from '../LogFollow';
import { renderEn } from './testUtil';

/** A fetch whose answers are streams the test writes to. */
function streamingFetch() {
  const streams: { url: string; push(s: string): void; end(): void }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      let ctl!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({ start: (c) => void (ctl = c) });
      init.signal?.addEventListener('abort', () => {
        try {
          ctl.error(new DOMException('aborted', 'AbortError'));
        } catch {
          /* already closed */
        }
      });
      streams.push({ url, push: (s) => ctl.enqueue(new TextEncoder().encode(s)), end: () => ctl.close() });
      return new Response(body, { status: 200, headers: { 'Content-Type': 'text/plain' } });
    }),
  );
  return streams;
}

afterEach(() => vi.unstubAllGlobals());

describe('LogFollow', { timeout: 20000 }, () => {
  it('streams a replica with follow, ends, and resumes from its offset', async () => {
    const streams = streamingFetch();
    renderEn(<LogFollow path="/api/v1/projects/p/jobs/j/logs" replicas={2} />);
    await waitFor(() => expect(streams).toHaveLength(1));
    expect(streams[0].url).toBe('/api/v1/projects/p/jobs/j/logs?follow=1&offset=0&replica=0');
    expect(screen.getByRole('status')).toHaveTextContent('Streaming…');
    await act(async () => streams[0].push('hello\n'));
    await waitFor(() => expect(screen.getByRole('log', { name: 'Log' })).toHaveTextContent('hello'));
    await act(async () => streams[0].push('world\n'));
    await waitFor(() => expect(screen.getByRole('log')).toHaveTextContent('hello world'));

    // follow off stops the stream; on again resumes after the 12 bytes shown
    fireEvent.click(screen.getByRole('switch', { name: 'Follow' }));
    fireEvent.click(screen.getByRole('switch', { name: 'Follow' }));
    await waitFor(() => expect(streams).toHaveLength(2));
    expect(streams[1].url).toContain('offset=12');
    await act(async () => {
      streams[1].push('bye\n');
      streams[1].end();
    });
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('The log ended.'));
    expect(screen.getByRole('log').textContent).toBe('hello\nworld\nbye\n');
  });

  it('shows the server message when the log cannot be read', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(JSON.stringify({ error: { code: 'NotFound', message: 'no log for jobs/x' } }), { status: 404 })),
    );
    renderEn(<LogFollow path="/api/v1/projects/p/jobs/x/logs" />);
    expect(await screen.findByText('no log for jobs/x')).toBeInTheDocument();
  });
});
