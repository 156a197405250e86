"""Several models over several data sets (Demsar 2006): mean ranks, the Friedman test, the
Nemenyi critical difference and pairwise tests (Nemenyi, Holm-adjusted Wilcoxon)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalmc.inputs.checks import check_choice, check_float


@dataclass
class RanksResult:
    """Outcome of :func:`ranks`.

    Attributes
    ----------
    models : list of str
        The models, in the data's column order.
    mean_ranks : ndarray
        Each model's mean rank over the data sets (1 = best).
    n_datasets, dropped : int
        Complete data sets used, and those left out for a missing score.
    friedman_chi2, friedman_p : float
        Friedman's statistic and p-value: does some model differ?
    critical_difference : float
        Nemenyi's critical difference of mean ranks at `alpha`.
    alpha : float
    pairs : DataFrame
        One row per pair: ``model_i``, ``model_j``, their ranks, ``nemenyi_p``, ``wilcoxon_holm_p``.
    best : {'max', 'min'}
        Which scores rank first: the highest (accuracies) or the lowest (errors, losses).

    Examples
    --------
    >>> import evalmc
    >>> res = evalmc.ranks({"A": [0.9, 0.8, 0.7, 0.9], "B": [0.8, 0.7, 0.6, 0.7],
    ...                     "C": [0.7, 0.9, 0.5, 0.6]})
    >>> print(res.headline())
    3 models on 4 data sets, higher scores better; Friedman chi-square 3.500, p = 0.174; \
Nemenyi critical difference 1.657 at alpha 0.05
    >>> res.to_frame()[["model_i", "model_j", "nemenyi_p"]].round(3)
      model_i model_j  nemenyi_p
    0       A       B      0.333
    1       A       C      0.181
    2       B       C      0.933
    """

    models: list[str]
    mean_ranks: np.ndarray
    n_datasets: int
    dropped: int
    friedman_chi2: float
    friedman_p: float
    critical_difference: float
    alpha: float
    pairs: pd.DataFrame
    best: str = "max"

    def to_frame(self) -> pd.DataFrame:
        """The pairwise table (:attr:`pairs`).

        >>> import evalmc
        >>> res = evalmc.ranks({"A": [0.9, 0.8, 0.7], "B": [0.8, 0.7, 0.6]})
        >>> res.to_frame()[["model_i", "model_j", "rank_i", "rank_j", "wilcoxon_holm_p"]]
          model_i model_j  rank_i  rank_j  wilcoxon_holm_p
        0       A       B     1.0     2.0             0.25
        """
        return self.pairs

    def headline(self) -> str:
        """One line: models, data sets, which scores rank first, Friedman's test and the
        critical difference.

        >>> import evalmc
        >>> print(evalmc.ranks({"A": [0.9, 0.8, 0.7], "B": [0.8, 0.7, 0.6]}).headline())
        2 models on 3 data sets, higher scores better; Friedman chi-square 3.000, p = 0.0833; \
Nemenyi critical difference 1.132 at alpha 0.05
        """
        better = "higher" if self.best == "max" else "lower"
        return (f"{len(self.models)} models on {self.n_datasets} data sets, {better} scores "
                f"better; Friedman chi-square {self.friedman_chi2:.3f}, p = "
                f"{self.friedman_p:.3g}; Nemenyi critical difference "
                f"{self.critical_difference:.3f} at alpha {self.alpha:g}")

    def to_dict(self) -> dict:
        """Every number, as plain Python values (for JSON).

        >>> import evalmc
        >>> res = evalmc.ranks({"A": [0.9, 0.8, 0.7], "B": [0.8, 0.7, 0.6]})
        >>> res.to_dict()["models"], res.to_dict()["data_sets"], res.to_dict()["best"]
        (2, 3, 'max')
        """
        return {"models": len(self.models), "data_sets": self.n_datasets, "best": self.best,
                "dropped": self.dropped, "friedman_chi2": self.friedman_chi2,
                "friedman_p": self.friedman_p, "critical_difference": self.critical_difference,
                "alpha": self.alpha, "pairs": self.pairs.to_dict(orient="records")}

    def plot(self):
        """The critical-difference diagram, a Figure (not saved).

        >>> import evalmc
        >>> fig = evalmc.ranks({"A": [0.9, 0.8, 0.7], "B": [0.8, 0.7, 0.6]}).plot()
        >>> fig.axes[0].get_title()[:17]
        'Critical differen'
        """
        from evalmc.plots import critical_difference

        return critical_difference(
            dict(zip(self.models, self.mean_ranks, strict=True)), self.critical_difference,
            title=f"Critical difference (Nemenyi, alpha {self.alpha:g}), {len(self.models)} "
                  f"models on {self.n_datasets} data sets")


def ranks(data, *, alpha: float = 0.05, dropna: bool = True, best: str = "max") -> RanksResult:
    """Compare k models over d data sets by their ranks.

    Parameters
    ----------
    data : DataFrame or dict of str to array_like
        One row per data set, one column of numeric scores per model.
    alpha : float
        Level of the Nemenyi critical difference, in (0, 1).
    dropna : bool
        Leave out (and count) the data sets missing a model's score; False makes one an error.
    best : {'max', 'min'}
        Whether the highest score is the best (rank 1), or the lowest (errors, losses).

    Returns
    -------
    RanksResult

    Examples
    --------
    >>> import numpy as np
    >>> import evalmc
    >>> rng = np.random.default_rng(0)
    >>> scores = {"A": rng.normal(0.8, 0.05, 12), "B": rng.normal(0.7, 0.05, 12),
    ...           "C": rng.normal(0.7, 0.05, 12)}
    >>> res = evalmc.ranks(scores)
    >>> res.mean_ranks.round(2).tolist(), round(res.friedman_p, 4)
    ([1.08, 2.5, 2.42], 0.0005)
    >>> evalmc.ranks(scores, best="min").mean_ranks.round(2).tolist()  # as errors: A is worst
    [2.92, 1.5, 1.58]
    """
    from scipy.stats import studentized_range

    from evalmc.criteria.ranks import friedman, mean_ranks, nemenyi_pairs, wilcoxon_holm_pairs
    from evalmc.sims.multidataset import TableBatch

    alpha = check_float("alpha", alpha, low=0, high=1, open_low=True, open_high=True)
    best = check_choice("best", best, ("max", "min"))
    try:
        frame = pd.DataFrame(data).astype(float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"`data` must hold one column of numbers per model; {err}.") from None
    missing = frame.isna().any(axis=1)
    dropped = int(missing.sum())
    if dropped and not dropna:
        row = int(np.flatnonzero(missing)[0])
        raise ValueError(f"data set {row + 1} misses a model's score; without --no-dropna "
                         "such data sets are dropped and counted.")
    frame = frame.dropna()
    d, k = frame.shape
    if k < 2 or d < 2:
        raise ValueError(f"`FILE` needs 2 models and 2 complete data sets at least; got {k} "
                         f"and {d}.")
    if (frame.nunique(axis=1) == 1).all():
        raise ValueError(f"`FILE`: the {k} models tie on every one of the {d} data sets (each "
                         "row's scores are equal), so no rank test is possible.")
    table = frame.to_numpy(float)[None] * (1.0 if best == "max" else -1.0)
    batch = TableBatch(table=table)
    mean = mean_ranks(table)[0]
    cd = studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2) * np.sqrt(
        k * (k + 1) / (6 * d))
    fried = friedman(batch)
    names = [str(c) for c in frame.columns]
    first, second = np.triu_indices(k, 1)  # every pair, once: O(k^2) tests in all
    pairs = pd.DataFrame({"model_i": [names[i] for i in first],
                          "model_j": [names[j] for j in second], "rank_i": mean[first],
                          "rank_j": mean[second], "nemenyi_p": nemenyi_pairs(table)[0],
                          "wilcoxon_holm_p": wilcoxon_holm_pairs(table)[0]})
    return RanksResult(names, mean, d, dropped, float(fried.statistic[0]),
                       float(fried.pvalue[0]), float(cd), alpha, pairs, best)
