"""On-disk store of finished blocks, so an interrupted or extended study recomputes nothing.

One ``.npz`` file per (condition, block), written atomically (a temporary file named after its host
and process, then renamed; a killed writer's is removed when the store is next opened on that
host). An unreadable file counts as missing. A block holds one record per analysis key, named
arrays and JSON metadata; saving adds to the records already there.
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
import zipfile
from pathlib import Path

import numpy as np

#: Bumped whenever a block's content changes for the same key (3: summaries, not values; 4: the
#: classifier tests' estimates, and so their sign errors; 5: the count of capped type-M ratios).
FORMAT_VERSION = 5

Record = tuple[dict[str, np.ndarray], dict]
#: Temporary files are ``<prefix><pid>-<random>.tmp``: a host tells which writers it can check.
_TMP_PREFIX = f".{socket.gethostname()}-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


class BlockStore:
    """Blocks of one condition of one study, under ``root/namespace`` (`namespace` digests all a
    block's content depends on besides its index and size)."""

    def __init__(self, root, namespace: str):
        self.dir = Path(root) / namespace
        self._remove_orphans()

    def _remove_orphans(self) -> None:
        """Delete temporary files of killed writers: this host's, of processes that are gone."""
        for tmp in self.dir.glob(f"{_TMP_PREFIX}*.tmp"):
            pid = tmp.name[len(_TMP_PREFIX):].split("-", 1)[0]
            if pid.isdigit() and not _alive(int(pid)):
                tmp.unlink(missing_ok=True)

    def _path(self, block: int, size: int) -> Path:
        return self.dir / f"block{block:06d}-n{size}.npz"

    def load(self, block: int, size: int) -> dict[str, Record]:
        """The records stored for the block of that index and size, key to ``(arrays, meta)``;
        empty if missing, unreadable or of another :data:`FORMAT_VERSION`."""
        path = self._path(block, size)
        if not path.exists():
            return {}
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                if meta["version"] != FORMAT_VERSION:
                    return {}
                return {key: ({name: data[f"{i}.{name}"] for name in names}, info)
                        for i, (key, names, info) in enumerate(meta["records"])}
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            return {}

    def save(self, block: int, size: int, records: dict[str, Record]) -> None:
        """Store `records` with those already in the block (replacing those of the same key),
        atomically."""
        self.dir.mkdir(parents=True, exist_ok=True)
        records = {**self.load(block, size), **records}
        arrays, listing = {}, []
        for i, (key, (named, info)) in enumerate(records.items()):
            listing.append((key, list(named), info))
            arrays.update({f"{i}.{name}": value for name, value in named.items()})
        meta = {"version": FORMAT_VERSION, "records": listing}
        fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=f"{_TMP_PREFIX}{os.getpid()}-",
                                   suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, meta=np.array(json.dumps(meta)), **arrays)
            os.replace(tmp, self._path(block, size))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
