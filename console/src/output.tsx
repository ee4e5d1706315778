import { useEffect, useRef } from 'preact/hooks';

export interface Line {
  stream: 'stdout' | 'stderr' | 'info';
  data: string;
}

/** Streamed output, stdout and stderr told apart, kept scrolled to its end. */
export function Output({ lines, label }: { lines: Line[]; label: string }) {
  const ref = useRef<HTMLPreElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [lines]);
  return (
    <pre class="output" ref={ref} role="log" aria-label={label} tabIndex={0}>
      {lines.map((l, i) => (
        <span key={i} class={l.stream}>
          {l.data}
        </span>
      ))}
    </pre>
  );
}
