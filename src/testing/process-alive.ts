/**
 * Whether process `pid` still exists. Signal 0 checks without signalling; EPERM means it exists but
 * belongs to someone else — alive all the same.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
