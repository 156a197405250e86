"""Decision criteria: built-in tests by name, and loading a user's own from a Python file.

Every criterion maps a :class:`~evalmc.sims.base.Batch` to a :class:`CriterionResult` for all its
replications at once.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import inspect
import re
import sys
from pathlib import Path

from evalmc.criteria.aso import ASO
from evalmc.criteria.base import BuiltinCriterion, CriterionResult, UserCriterion
from evalmc.criteria.bayesian import bayes_correlated_t, bayes_signed_rank
from evalmc.criteria.bootstrap import BOOTSTRAP_CRITERIA
from evalmc.criteria.classifiers import CLASSIFIER_CRITERIA
from evalmc.criteria.cv import CV_CRITERIA
from evalmc.criteria.items import ITEM_CRITERIA
from evalmc.criteria.nonparametric import mann_whitney, sign_test
from evalmc.criteria.outperform import (
    OUTPERFORM_CRITERIA,
    ResamplingCriterion,
    average_delta,
    single_point,
)
from evalmc.criteria.permutation import permutation_paired, permutation_two_sample
from evalmc.criteria.ranks import RANK_CRITERIA, nemenyi_criterion, wilcoxon_holm_criterion
from evalmc.criteria.signed_rank import wilcoxon
from evalmc.criteria.ttests import paired_t, student_t, welch_t

CRITERIA: dict[str, BuiltinCriterion] = {
    c.name: c
    for c in (
        BuiltinCriterion("paired-t", "paired t-test on A - B", paired_t, paired=True),
        BuiltinCriterion("student-t", "Student's t-test, pooled variance", student_t),
        BuiltinCriterion("welch-t", "Welch's t-test, unequal variances", welch_t),
        BuiltinCriterion(
            "mann-whitney",
            "Mann-Whitney U (exact if a sample <= 8 and no ties, else normal approx.)",
            mann_whitney,
        ),
        BuiltinCriterion("sign", "sign test on paired differences (exact binomial)", sign_test,
                         paired=True),
        BuiltinCriterion("wilcoxon", "Wilcoxon signed-rank test, zero differences dropped "
                         "(scipy's defaults)", wilcoxon, paired=True),
        BuiltinCriterion("wilcoxon-pratt", "Wilcoxon signed-rank test, Pratt's zeros",
                         functools.partial(wilcoxon, zero_method="pratt"), paired=True),
        BuiltinCriterion("wilcoxon-zsplit", "Wilcoxon signed-rank test, zeros split",
                         functools.partial(wilcoxon, zero_method="zsplit"), paired=True),
        ResamplingCriterion("permutation-paired", "paired permutation test of mean(A - B): "
                            "all 2^n sign flips up to 16 pairs, else 9999 random (+1)",
                            permutation_paired, paired=True),
        ResamplingCriterion("permutation-two-sample", "two-sample permutation test of "
                            "mean(A) - mean(B): every split up to 9999, else 9999 random (+1)",
                            permutation_two_sample),
    )
}
CRITERIA.update({c.name: c for c in BOOTSTRAP_CRITERIA})
CRITERIA.update({c.name: c for c in OUTPERFORM_CRITERIA})
CRITERIA.update({c.name: c for c in CLASSIFIER_CRITERIA})
CRITERIA.update({c.name: c for c in ITEM_CRITERIA})
CRITERIA.update({c.name: c for c in RANK_CRITERIA})
CRITERIA[ASO.name] = ASO
CRITERIA["bayes-correlated-t"] = bayes_correlated_t()
CRITERIA["bayes-signed-rank"] = bayes_signed_rank()
CRITERIA.update({c.name: c for c in CV_CRITERIA})
#: Criteria with parameters: ``name(key=value, ...)`` builds one (numbers only).
FACTORIES = {"single-point": single_point, "average-delta": average_delta,
             "bayes-correlated-t": bayes_correlated_t, "bayes-signed-rank": bayes_signed_rank,
             "nemenyi": nemenyi_criterion, "wilcoxon-holm": wilcoxon_holm_criterion}
_WITH_PARAMETERS = re.compile(r"([\w-]+)\((.*)\)")


_MODULE_FUNCTION = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")


def get_criterion(spec) -> BuiltinCriterion | UserCriterion:
    """Resolve a criterion: a built-in name, ``'path/to/file.py:function'``, an importable
    ``'module:function'`` (:mod:`evalmc.criteria.peers`), or a callable.

    Examples
    --------
    >>> import evalmc
    >>> evalmc.get_criterion("welch-t").description
    "Welch's t-test, unequal variances"
    >>> evalmc.get_criterion(lambda a, b: a.mean() > b.mean()).paired
    False
    """
    if isinstance(spec, (BuiltinCriterion, UserCriterion)):
        return spec
    if callable(spec):
        return UserCriterion(spec)
    if isinstance(spec, str) and ":" in spec and spec.rsplit(":", 1)[0].endswith(".py"):
        return load_criterion(spec)
    if spec in CRITERIA:
        return CRITERIA[spec]
    if isinstance(spec, str) and (match := _WITH_PARAMETERS.fullmatch(spec.replace(" ", ""))):
        return _build(*match.groups())
    if isinstance(spec, str) and _MODULE_FUNCTION.fullmatch(spec):
        from evalmc.criteria.peers import import_criterion

        return import_criterion(spec)
    valid = ", ".join(CRITERIA)
    raise ValueError(
        f"unknown criterion {spec!r}; valid names: {valid}, name(key=value) for "
        f"{', '.join(FACTORIES)}, path/to/file.py:function, or module:function."
    )


def _build(name: str, arguments: str) -> BuiltinCriterion:
    """``name(key=value, ...)`` from :data:`FACTORIES`, values read as numbers."""
    if name not in FACTORIES:
        raise ValueError(f"criterion {name!r} takes no parameters; criteria with parameters: "
                         f"{', '.join(FACTORIES)}.")
    factory = FACTORIES[name]
    accepted = list(inspect.signature(factory).parameters)
    kwargs = {}
    for item in filter(None, arguments.split(",")):
        key, equals, value = item.partition("=")
        if not equals or key not in accepted:
            raise ValueError(f"criterion {name!r}: {item!r} is not key=value with a key among "
                             f"{', '.join(accepted)}.")
        try:
            kwargs[key] = float(value)
        except ValueError:
            raise ValueError(f"criterion {name!r}: `{key}` must be a number; got {value!r}.")\
                from None
    return factory(**kwargs)


def load_criterion(spec: str) -> UserCriterion:
    """Load ``function`` from ``path/to/file.py:function`` as a user criterion.

    The module is registered with cloudpickle for pickling by value, so process and dask
    workers receive the function without needing the file.
    """
    path_text, _, func_name = spec.rpartition(":")
    path = Path(path_text)
    if not path.is_file():
        raise ValueError(f"`criterion` file {path_text!r} does not exist.")
    # named by its path, the same in every process: the criterion's cache key digests it
    digest = hashlib.blake2b(str(path.resolve()).encode(), digest_size=8).hexdigest()
    module_name = f"evalmc_user_{digest}"
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as err:
        del sys.modules[module_name]
        raise ValueError(
            f"`criterion` file {path_text!r} failed to import: {type(err).__name__}: {err}"
        ) from None
    func = getattr(module, func_name, None)
    if not callable(func):
        raise ValueError(f"`criterion` file {path_text!r} has no function {func_name!r}.")
    import cloudpickle

    cloudpickle.register_pickle_by_value(module)
    return UserCriterion(func, name=spec)


__all__ = ["CRITERIA", "CriterionResult", "UserCriterion", "get_criterion", "load_criterion"]
