// Progress on stderr while sbx waits: on a terminal a spinner redrawn in place with the
// current phase; elsewhere (a pipe, CI, a test) one line each time the text changes.

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface Spinner {
  update(text: string): void;
  /** Clears the spinner and prints `line` (when given) in its place. */
  stop(line?: string): void;
}

export function spinner(stream: NodeJS.WriteStream = process.stderr, quiet = false): Spinner {
  if (quiet) return { update() {}, stop() {} };
  if (!stream.isTTY) {
    let last = '';
    return {
      update(text) {
        if (text !== last) stream.write(`${text}\n`);
        last = text;
      },
      stop(line) {
        if (line) stream.write(`${line}\n`);
      },
    };
  }
  let text = '';
  let frame = 0;
  const draw = () => {
    const width = (stream.columns || 80) - 3;
    stream.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${text.slice(0, width)}`);
  };
  const timer = setInterval(draw, 80);
  timer.unref();
  return {
    update(next) {
      text = next;
      draw();
    },
    stop(line) {
      clearInterval(timer);
      stream.write('\r\x1b[2K');
      if (line) stream.write(`${line}\n`);
    },
  };
}

/** A transfer's progress: a bar on a terminal once it is large, nothing otherwise. */
export interface Progress {
  add(bytes: number): void;
  done(): void;
}

const LARGE = 1 << 20;

export function progressBar(
  label: string,
  total: number | undefined,
  enabled = true,
  stream: NodeJS.WriteStream = process.stderr,
): Progress {
  if (!enabled || !stream.isTTY) return { add() {}, done() {} };
  let sent = 0;
  let drawn = 0;
  const started = Date.now();
  const draw = () => {
    const mb = (n: number) => (n / (1 << 20)).toFixed(1);
    const rate = sent / Math.max(0.001, (Date.now() - started) / 1000);
    const cols = Math.max(10, Math.min(40, (stream.columns || 80) - 60));
    let bar: string;
    if (total !== undefined && total > 0) {
      const filled = Math.min(cols, Math.round((sent / total) * cols));
      bar = `[${'#'.repeat(filled)}${'.'.repeat(cols - filled)}] ${mb(sent)}/${mb(total)} MiB`;
    } else bar = `${mb(sent)} MiB`;
    stream.write(`\r\x1b[2K${label} ${bar} ${mb(rate)} MiB/s`);
  };
  return {
    add(bytes) {
      sent += bytes;
      if ((total ?? sent) < LARGE) return;
      if (sent - drawn >= 256 * 1024 || sent === total) {
        drawn = sent;
        draw();
      }
    },
    done() {
      if (drawn > 0) {
        draw();
        stream.write('\n');
      }
    },
  };
}
