import { ProgressLine, type ProgressStream } from '../src/progress';

/** A stand-in for standard error that records what was written, on a terminal or not. */
function aStream(isTTY: boolean): ProgressStream & { text: string } {
  const stream = {
    isTTY,
    text: '',
    write(chunk: string): boolean {
      stream.text += chunk;
      return true;
    },
  };
  return stream;
}

describe('the progress line', () => {
  it('writes nothing at all when standard error is not a terminal', () => {
    const stream = aStream(false);
    const line = new ProgressLine('backup', 'pages', stream);
    line.update(1, 10);
    line.status('checking');
    line.update(10, 10);
    line.done();
    expect(line.active).toBe(false);
    expect(stream.text).toBe('');
  });

  it('redraws one line in place on a terminal, at most every 100 ms, always at completion, and clears it when done', () => {
    const stream = aStream(true);
    let now = 0;
    const line = new ProgressLine('backup', 'pages', stream, () => now);
    line.update(0, 2_940);
    now = 50;
    line.update(1_000, 2_940);
    now = 120;
    line.update(1_234, 2_940);
    now = 130;
    line.update(2_940, 2_940);
    line.done();
    expect(stream.text.split('\r\u001b[2K')).toEqual(['', 'svc: backup   0%  0/2,940 pages', 'svc: backup  41%  1,234/2,940 pages', 'svc: backup 100%  2,940/2,940 pages', '']);
    expect(stream.text).not.toContain('\n');
  });

  it('shows bytes in MB, and a note for a step it cannot measure', () => {
    const stream = aStream(true);
    const line = new ProgressLine('restore', 'bytes', stream);
    line.update(3 * 1024 ** 2, 12 * 1024 ** 2);
    line.status('checking the copy…');
    line.done();
    expect(stream.text).toBe('\r\u001b[2Ksvc: restore  25%  3.0/12.0 MB\r\u001b[2Ksvc: restore: checking the copy…\r\u001b[2K');
  });
});
