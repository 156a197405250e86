"""Decision criteria: built-in tests by name, and loading a user's own from a Python file.

Every criterion maps a :class:`~evalmc.sims.base.Batch` to a
:class:`~evalmc.criteria.base.CriterionResult` for all its replications at once; this package
imports no numerical library until a criterion is built."""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import re
import sys
from pathlib import Path

from evalmc.criteria.registry import CRITERIA

_MODULE_FUNCTION = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
#: Names defined in :mod:`evalmc.criteria.base`, loaded on first use.
_LAZY = ("BuiltinCriterion", "CriterionResult", "UserCriterion")


def get_criterion(spec, **args):
    """Resolve a criterion: a built-in name (``name(key=value,...)`` for a family), a
    ``'path/to/file.py:function'``, an importable ``'module:function'``, or a callable.

    Parameters
    ----------
    spec : str, callable or criterion
    **args
        Arguments of a built-in family, as keywords (the same as ``name(key=value)``).

    Returns
    -------
    BuiltinCriterion or UserCriterion

    Examples
    --------
    >>> import evalmc
    >>> evalmc.get_criterion("welch-t").description
    "Welch's t-test, unequal variances"
    >>> evalmc.get_criterion("nemenyi", i=0, j=4).name
    'nemenyi(i=0,j=4)'
    >>> evalmc.get_criterion(lambda a, b: a.mean() > b.mean()).paired
    False

    A built-in test on your own two samples of scores:

    >>> evalmc.get_criterion("welch-t").on([1.0, 2.0, 3.0], [2.0, 3.0, 5.0]).pvalues().round(4)
    array([0.2846])
    """
    from evalmc.criteria.base import BuiltinCriterion, UserCriterion, build

    if isinstance(spec, (BuiltinCriterion, UserCriterion)):
        return spec
    if callable(spec):
        return UserCriterion(spec)
    if isinstance(spec, str) and ":" in spec and spec.rsplit(":", 1)[0].endswith(".py"):
        return load_criterion(spec)
    if isinstance(spec, str) and _MODULE_FUNCTION.fullmatch(spec):
        from evalmc.criteria.peers import import_criterion

        return import_criterion(spec)
    return build(*CRITERIA.resolve(spec, args))


def load_criterion(spec: str):
    """Load ``function`` from ``path/to/file.py:function`` as a user criterion.

    The module is pickled by value, so workers need not see the file; the modules beside it
    may be imported, and are forgotten once it loads.

    Parameters
    ----------
    spec : str
        ``'path/to/file.py:function'``.

    Returns
    -------
    UserCriterion
        Named `spec`; a ValueError when the file is missing, fails to import or lacks it.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = Path(folder.name) / "my_tests.py"
    >>> _ = path.write_text("def mean_gap(a, b):\\n    return bool(a.mean() - b.mean() > 0.5)\\n")
    >>> criterion = load_criterion(f"{path}:mean_gap")
    >>> criterion.name.endswith("my_tests.py:mean_gap")
    True
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> criterion(batch, np.random.default_rng(0)).reject
    array([ True, False])
    >>> folder.cleanup()
    """
    func = load_function(spec, "criterion")
    from evalmc.criteria.base import UserCriterion

    return UserCriterion(func, name=spec)


def load_function(spec: str, kind: str = "criterion"):
    """The function of ``path/to/file.py:function``, loaded as :func:`load_criterion` says;
    a ValueError naming the `kind`'s file (``criterion``, ``estimator``) when the file is
    missing, fails to import, or has no such function."""
    path_text, _, func_name = spec.rpartition(":")
    path = Path(path_text)
    if not path.is_file():
        raise ValueError(f"`{kind}` file {path_text!r} does not exist.")
    # named by its contents, the same in every process and wherever the file lies: the
    # criterion's cache key and random stream digest it
    digest = hashlib.blake2b(path.read_bytes(), digest_size=8).hexdigest()
    module_name = f"evalmc_user_{digest}"
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_name] = module
    try:
        with _beside(path.resolve().parent):
            module_spec.loader.exec_module(module)
    except Exception as err:
        del sys.modules[module_name]
        raise ValueError(
            f"`{kind}` file {path_text!r} failed to import: {type(err).__name__}: {err}"
        ) from None
    func = getattr(module, func_name, None)
    if not callable(func):
        raise ValueError(f"`{kind}` file {path_text!r} has no function {func_name!r}.")
    import cloudpickle

    cloudpickle.register_pickle_by_value(module)
    return func


@contextlib.contextmanager
def _beside(folder: Path):
    """Modules of `folder` importable first within the block, and forgotten after it."""
    before = set(sys.modules)
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        sys.path.remove(str(folder))
        for name in set(sys.modules) - before:
            path, top = getattr(sys.modules[name], "__file__", None), name.partition(".")[0]
            if path is not None and (Path(path).resolve() == folder / f"{top}.py"
                                     or Path(path).resolve().is_relative_to(folder / top)):
                del sys.modules[name]


def resamples(name: str) -> int | None:
    """The resamples B of a built-in criterion's resampling p-value, below whose resolution
    1/B its p-value says only "smaller than 1/B"; None for a criterion that does not resample
    (or is not built in).

    Parameters
    ----------
    name : str
        A criterion's name, ``name(key=value,...)`` for a family's member.

    Returns
    -------
    int or None
        Its ``n_resamples`` (or ``n_boot``) argument, or its row's ``resamples`` fact.

    Examples
    --------
    >>> from evalmc.criteria import resamples
    >>> resamples("cluster-bootstrap"), resamples("sacrebleu-paired-bs(n_resamples=500)")
    (999, 500)
    >>> resamples("clustered-z") is None, resamples("my_tests.py:test") is None
    (True, True)
    """
    try:
        entry, args = CRITERIA.resolve(name)
    except (ValueError, KeyError):
        return None
    for param in ("n_resamples", "n_boot"):
        if any(p.name == param for p in entry.params):
            return int(args.get(param, entry.defaults()[param]))
    return entry.facts.get("resamples")


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'evalmc.criteria' has no attribute {name!r}")
    value = getattr(importlib.import_module("evalmc.criteria.base"), name)
    globals()[name] = value
    return value


__all__ = ["CRITERIA", "BuiltinCriterion", "CriterionResult", "UserCriterion", "get_criterion",
           "load_criterion", "resamples"]
