import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { basename, join } from 'node:path';

/** TCP's LISTEN state, as /proc/net/tcp writes it. */
const LISTENING = '0A';

/**
 * The process listening on TCP `port`, as "name (pid N)", where this machine tells: Linux lists
 * sockets in /proc/net/tcp{,6} and each process's open files under /proc/PID/fd, which only
 * the owner (and root) may read; "a process of uid N" when only the socket can be seen;
 * undefined elsewhere.
 */
export function portHolder(port: number, proc = '/proc'): string | undefined {
  const sockets = listeningSockets(port, proc);
  if (sockets.size === 0) return undefined;
  for (const pid of readdirSync(proc).filter((name) => /^\d+$/.test(name))) {
    if (holdsSocket(join(proc, pid, 'fd'), sockets)) return `${commandName(join(proc, pid))} (pid ${pid})`;
  }
  const [uid] = sockets.values();
  return `a process of uid ${uid}`;
}

/** The inodes of the sockets listening on `port`, each with the uid that owns it. */
function listeningSockets(port: number, proc: string): Map<string, string> {
  const sockets = new Map<string, string>();
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(join(proc, 'net', table), 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      const [uid, inode] = [fields[7], fields[9]];
      if (!local || fields[3] !== LISTENING || !uid || !inode) continue;
      if (Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) sockets.set(inode, uid);
    }
  }
  return sockets;
}

function holdsSocket(fds: string, sockets: Map<string, string>): boolean {
  let names: string[];
  try {
    names = readdirSync(fds);
  } catch {
    return false;
  }
  return names.some((fd) => {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(join(fds, fd)))?.[1];
      return inode !== undefined && sockets.has(inode);
    } catch {
      return false;
    }
  });
}

/**
 * The program's name: its command line's first word (comm is a thread's name, and Node 24 names
 * its main thread "MainThread"), else comm.
 */
function commandName(processDir: string): string {
  try {
    const program = readFileSync(join(processDir, 'cmdline'), 'utf8').split('\0')[0] ?? '';
    if (program) return basename(program);
    return readFileSync(join(processDir, 'comm'), 'utf8').trim() || 'a process';
  } catch {
    return 'a process';
  }
}
