import { readFile, readdir } from 'node:fs/promises';

/**
 * Kills (SIGKILL) every process whose command line names a path under `dir/`, but never
 * this process: what a devnode killed outright may have left of its Pods (a bubblewrap
 * helper, a sandboxd whose parent was gone before it could be told). Normally there is
 * nothing, as every container dies with devnode; this makes a start after a crash certain
 * to run no Pod twice. Returns the pids it killed.
 */
export async function killLeftovers(dir: string): Promise<number[]> {
  const needle = `${dir.replace(/\/+$/, '')}/`;
  const pids = (await readdir('/proc')).filter((e) => /^\d+$/.test(e)).map(Number);
  const killed: number[] = [];
  for (const pid of pids) {
    if (pid === process.pid) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (!cmdline.split('\0').some((arg) => arg.includes(needle))) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // gone already
    }
  }
  return killed;
}
