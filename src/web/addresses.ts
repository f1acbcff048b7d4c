import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';

export interface AddressSources {
  /** The kernel's list of interfaces (node:os; it asks over a netlink socket). */
  interfaces: () => ReturnType<typeof networkInterfaces>;
  /** The kernel's routing table as text (/proc/net/fib_trie): readable where netlink is not allowed. */
  routes: () => string;
}

const realSources: AddressSources = {
  interfaces: networkInterfaces,
  routes: () => readFileSync('/proc/net/fib_trie', 'utf8'),
};

/**
 * The IPv4 addresses other machines reach this one by. Where a sandbox allows no netlink socket
 * (a unit's RestrictAddressFamilies=) the interface list cannot be had, and the routing table's
 * local addresses serve; where neither can be read, none are known.
 */
export function ownAddresses(sources: AddressSources = realSources): string[] {
  try {
    return Object.values(sources.interfaces())
      .flat()
      .filter((i) => i !== undefined && !i.internal && i.family === 'IPv4')
      .map((i) => (i as { address: string }).address);
  } catch {
    try {
      return localRoutes(sources.routes());
    } catch {
      return [];
    }
  }
}

/** The addresses /proc/net/fib_trie marks `/32 host LOCAL`, loopback left out. */
export function localRoutes(trie: string): string[] {
  const found = new Set<string>();
  let address: string | undefined;
  for (const line of trie.split('\n')) {
    const leaf = /\|-- (\d+\.\d+\.\d+\.\d+)/.exec(line);
    if (leaf) address = leaf[1];
    else if (address && /\/32 host LOCAL/.test(line) && !address.startsWith('127.')) found.add(address);
  }
  return [...found];
}
