import type { Sandbox } from '../../clients/typescript/index.ts';

export function phaseOf(s: Sandbox): string {
  return s.status?.phase ?? 'Pending';
}

export function Badge({ phase }: { phase: string }) {
  return (
    <span class={`badge phase-${phase}`} data-phase={phase}>
      {phase}
    </span>
  );
}
