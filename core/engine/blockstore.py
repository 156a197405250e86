"""On-disk store of finished blocks, so an interrupted or extended study recomputes nothing.

One ``.npz`` file per (condition, block), written atomically (temporary file, then rename), so
a process killed mid-write leaves either the previous file or none; its temporary file, named
after its host and process, is removed when the store is next opened on that host. A file that
cannot be read counts as missing and is recomputed. A block holds one record per analysis key
(a criterion's tally, say): named arrays and JSON metadata. Saving adds to the records already
there.
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
#: classifier tests' estimates, and so their sign errors).
FORMAT_VERSION = 4

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
    """Blocks of one condition of one study, under ``root/namespace``.

    Parameters
    ----------
    root : path
        The cache directory given by the user.
    namespace : str
        Identifies everything a block's content depends on besides its index and size:
        scenario and its full parameters, seed, block size, format version.

    Examples
    --------
    Two analyses' records saved in turn into block 0 (of 100 replications) are read back
    together; a block of another size is another file:

    >>> import tempfile
    >>> import numpy as np
    >>> from evalmc.engine.blockstore import BlockStore
    >>> with tempfile.TemporaryDirectory() as root:
    ...     store = BlockStore(root, "normal-0123")
    ...     store.save(0, 100, {"welch-t": ({"hist": np.arange(3)}, {"levels": [0.0125]})})
    ...     store.save(0, 100, {"sign": ({"hist": np.zeros(3, int)}, {})})
    ...     records = store.load(0, 100)
    ...     files = sorted(path.name for path in store.dir.iterdir())
    ...     other = store.load(0, 50)
    >>> sorted(records), records["welch-t"][0]["hist"].tolist(), records["welch-t"][1]
    (['sign', 'welch-t'], [0, 1, 2], {'levels': [0.0125]})
    >>> files, other
    (['block000000-n100.npz'], {})
    """

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
        """The records stored for the block, by key (empty if none or unreadable).

        Parameters
        ----------
        block : int
            The block's index in its condition.
        size : int
            Its replications: a block of another size is another block.

        Returns
        -------
        dict of str to tuple
            Analysis key to its record, ``(arrays, meta)``: named arrays and JSON metadata.
            Empty when the file is missing, unreadable, or of another :data:`FORMAT_VERSION`.

        Examples
        --------
        >>> import tempfile
        >>> from evalmc.engine.blockstore import BlockStore
        >>> with tempfile.TemporaryDirectory() as root:
        ...     BlockStore(root, "normal-0123").load(0, 100)
        {}
        """
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
        """Store `records` with those already in the block, atomically.

        A record of a key already stored replaces it; the others are kept.

        Parameters
        ----------
        block : int
            The block's index in its condition.
        size : int
            Its replications.
        records : dict of str to tuple
            Analysis key to ``(arrays, meta)``: a dict of named arrays (no object arrays) and
            a JSON-serialisable dict.

        Examples
        --------
        >>> import tempfile
        >>> import numpy as np
        >>> from evalmc.engine.blockstore import BlockStore
        >>> with tempfile.TemporaryDirectory() as root:
        ...     store = BlockStore(root, "normal-0123")
        ...     store.save(3, 100, {"welch-t": ({"counts": np.array([100, 2])}, {})})
        ...     store.save(3, 100, {"welch-t": ({"counts": np.array([100, 0])}, {})})
        ...     store.load(3, 100)["welch-t"][0]["counts"].tolist()
        [100, 0]
        """
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
