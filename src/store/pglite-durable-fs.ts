// PGlite's files on disk, synced when PostgreSQL asks. Three things kept an acknowledged commit
// of the embedded database out of the disk (measured with strace: 100 committed INSERTs, 279
// pwrite64, not one fsync or fdatasync): PGlite starts PostgreSQL with fsync off (-F); its Node
// filesystem (NodeFS) is Emscripten's NODEFS, whose files have no `fsync` operation, so an fsync
// returned success and did nothing; and Emscripten's fdatasync, the WAL's default sync at every
// commit, is a stub that does nothing either. A payment lived in the operating system's page cache
// until the kernel chose to write it: a power cut or a kernel crash could lose it, or tear the data
// dir. openPglite (pglite.ts) turns fsync on and has the WAL synced with fsync; this filesystem is
// NodeFS with the operation: each fsync PostgreSQL asks for is an fsync of the file.
import fs from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

type InitOptions = Parameters<NodeFS['init']>[1];

/** What of Emscripten's NODEFS is used here (its stream operations, shared by every open file). */
interface NodeFsType {
  stream_ops: Record<string, unknown>;
  tryFSOperation?: (f: () => unknown) => unknown;
}

/** An open file of NODEFS: its Node file descriptor. */
interface NodeFsStream {
  nfd?: number;
}

/**
 * Gives NODEFS's files an fsync: Node's fsync of the file's descriptor, its failure turned into
 * the errno PostgreSQL sees (which then stops rather than trust data it could not sync).
 */
export function syncedFiles(nodefs: NodeFsType): void {
  nodefs.stream_ops.fsync = (stream: NodeFsStream) => {
    const nfd = stream.nfd;
    if (nfd === undefined) return 0;
    const sync = () => fs.fsyncSync(nfd);
    if (nodefs.tryFSOperation) nodefs.tryFSOperation(sync);
    else sync();
    return 0;
  };
}

/** NodeFS whose files are synced when PostgreSQL syncs them. */
export class DurableNodeFS extends NodeFS {
  override async init(pg: PGlite, opts: InitOptions) {
    const { emscriptenOpts } = await super.init(pg, opts);
    return {
      emscriptenOpts: {
        ...emscriptenOpts,
        preRun: [...(emscriptenOpts.preRun ?? []), (mod: { NODEFS: NodeFsType }) => syncedFiles(mod.NODEFS)],
      },
    };
  }
}
