"""The engine calls the lessons share: a rate study's tidy frame, and one row picked from it."""

from __future__ import annotations

from evalmc.lessons.base import Headline


def rates(scenario, criteria, params, n_reps: int, seed: int, n_jobs: int = 1, **options):
    """Rejection rates of `criteria` on `scenario` over the grid `params`, as a tidy frame.

    Parameters
    ----------
    scenario : str
        A scenario's name.
    criteria : list
        Criteria (names, families' specs or callables).
    params : dict
        Parameter name to a value or a list of values (:func:`evalmc.calibrate`).
    n_reps, seed, n_jobs : int
    **options
        More options of :func:`evalmc.calibrate` (``alpha``).

    Returns
    -------
    DataFrame
        The grid's varying parameters, ``criterion``, ``rate``, ``mcse``, ``n_reps``.

    Examples
    --------
    >>> from evalmc.lessons.studies import rates
    >>> rates("normal", ["welch-t"], {"n_a": [5, 10]}, 500, 0)
       n_a criterion   rate      mcse  n_reps
    0    5   welch-t  0.050  0.009747     500
    1   10   welch-t  0.042  0.008971     500
    """
    from evalmc.study.calibration import calibrate

    res = calibrate(scenario, criteria, params=params, n_reps=n_reps, seed=seed, n_jobs=n_jobs,
                    progress=False, **options)
    varying = [k for k, v in params.items() if isinstance(v, (list, tuple))]
    return res.summary[[*varying, "criterion", "rate", "mcse", "n_reps"]].reset_index(drop=True)


def pick(frame, label: str, value: str = "rate", mcse: str = "mcse", digits: int = 3,
         **where) -> Headline:
    """The headline in the one row of `frame` where each column of `where` has its value.

    Parameters
    ----------
    frame : DataFrame
    label : str
        The headline's label.
    value, mcse : str
        The columns of the number and of its Monte Carlo standard error.
    digits : int
        Digits shown.
    **where
        Column name to the value of the row.

    Returns
    -------
    Headline

    Examples
    --------
    >>> import pandas as pd
    >>> from evalmc.lessons.studies import pick
    >>> frame = pd.DataFrame({"n": [5, 10], "rate": [0.1, 0.2], "mcse": [0.01, 0.02]})
    >>> pick(frame, "size at n = 10", n=10).value
    0.2
    """
    rows = frame
    for column, wanted in where.items():
        rows = rows[rows[column] == wanted]
    if len(rows) != 1:
        raise ValueError(f"{len(rows)} rows match {where}; the headline needs exactly one.")
    row = rows.iloc[0]
    return Headline(label, float(row[value]), float(row[mcse]), digits)
