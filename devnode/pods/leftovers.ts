import { readFile, readdir } from 'node:fs/promises';
import { basename } from 'node:path';

/**
 * Kills (SIGKILL) what a devnode killed outright may have left of its Pods under `dir`: a
 * bubblewrap container (its command line names the Pod's folder), and with it the sandboxd
 * and processes inside it (their own pid namespace ends with it). Normally there is nothing, as every container dies with devnode;
 * this makes a start after a crash certain to run no Pod twice. Other programs that merely
 * name the folder (a `tail -f` of a Pod's log) are left alone. Returns the pids it killed.
 */
export async function killLeftovers(dir: string): Promise<number[]> {
  const root = `${dir.replace(/\/+$/, '')}/`;
  const killed: number[] = [];
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
    const container =
      argv.some((a) => basename(a) === 'bwrap') && argv.some((a) => a.startsWith(`${root}pods/`));
    if (!container) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // gone already
    }
  }
  return killed;
}
