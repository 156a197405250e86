"""On-disk store of finished blocks, so an interrupted or extended study recomputes nothing.

One ``.npz`` file per (condition, block), written atomically (temporary file, then rename), so
a process killed mid-write leaves either the previous file or none. A file that cannot be read
counts as missing and is recomputed.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from evalmc.criteria.base import CriterionResult

#: Bumped whenever a block's content changes for the same key (2: 64-bit condition ids).
FORMAT_VERSION = 2
_ARRAYS = ("failed", "statistic", "pvalue", "reject")


class BlockStore:
    """Blocks of one condition of one study, under ``root/namespace``.

    Parameters
    ----------
    root : path
        The cache directory given by the user.
    namespace : str
        Identifies everything a block's content depends on besides its index and size:
        scenario and its full parameters, seed, block size, format version.
    """

    def __init__(self, root, namespace: str):
        self.dir = Path(root) / namespace

    def _path(self, block: int, size: int) -> Path:
        return self.dir / f"block{block:06d}-n{size}.npz"

    def load(self, block: int, size: int) -> dict[str, CriterionResult]:
        """The criteria results stored for the block, by criterion key (empty if none)."""
        path = self._path(block, size)
        if not path.exists():
            return {}
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                if meta["version"] != FORMAT_VERSION:
                    return {}
                out = {}
                for i, key in enumerate(meta["keys"]):
                    arrays = {f: data[f"{i}.{f}"] if f"{i}.{f}" in data else None
                              for f in _ARRAYS}
                    null = meta["null"][i]
                    out[key] = CriterionResult(
                        **arrays,
                        null=None if null is None else (null[0], tuple(null[1])),
                        errors={int(r): m for r, m in meta["errors"][i].items()},
                    )
                return out
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            return {}

    def save(self, block: int, size: int, results: dict[str, CriterionResult]) -> None:
        """Store the block's results atomically."""
        self.dir.mkdir(parents=True, exist_ok=True)
        keys = list(results)
        arrays = {}
        for i, key in enumerate(keys):
            for name in _ARRAYS:
                if getattr(results[key], name) is not None:
                    arrays[f"{i}.{name}"] = getattr(results[key], name)
        meta = {
            "version": FORMAT_VERSION,
            "keys": keys,
            "null": [results[k].null for k in keys],
            "errors": [{str(r): m for r, m in results[k].errors.items()} for k in keys],
        }
        fd, tmp = tempfile.mkstemp(dir=self.dir, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, meta=np.array(json.dumps(meta)), **arrays)
            os.replace(tmp, self._path(block, size))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
