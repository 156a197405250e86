"""Which question each interval and test of the audit answers (its estimand).

With repeated samples per item (inspect_ai's epochs, lm-evaluation-harness' ``--repeats``,
evalmc's ``--sample`` column) a difference between two models can mean three things:

- ``population``: the difference of expected scores over the population of items the benchmark
  samples (items, their clusters and the samples all drawn afresh): what a published comparison
  claims, and what the audit simulates (each replication draws fresh items);
- ``items``: the difference on *these* items, the items fixed, only the models' sampling noise
  over repeated answers left (narrower, and smaller in its error);
- ``sampling``: one model's sampling noise on these items (how far a re-run of the same model on
  the same items moves its score), a question about one model, not about the difference.

Every procedure and interval the audit runs treats the items as drawn from a population, and
every size and coverage it reports is under fresh items: they answer ``population``.
"""

from __future__ import annotations

#: Each estimand's words, as the audit's report names them.
ESTIMANDS = {
    "population": "the population of items: the difference of expected scores over fresh "
                  "items (and clusters, and samples) like yours",
    "items": "these items: the difference on the items you have, fixed, only the models' "
             "sampling noise over repeated answers",
    "sampling": "one model's sampling noise on these items: how far a re-run moves its score",
}
#: The estimand of the audit's simulations, and so of each size and coverage it reports.
AUDITED = "population"


def estimand_line(n_samples: int) -> str:
    """The report's line naming the question each size and coverage answers (with repeated
    samples, the narrower one it does not).

    Parameters
    ----------
    n_samples : int
        Samples per item in the data audited.

    Returns
    -------
    str

    Examples
    --------
    >>> estimand_line(1)[:60]
    'Estimand of every procedure and interval below: the populati'
    """
    line = f"Estimand of every procedure and interval below: {ESTIMANDS[AUDITED]}."
    if n_samples > 1:
        line += (f" With {n_samples} samples per item, {ESTIMANDS['items']}, is a narrower "
                 "question: an interval of it leaves out the items' spread, and its coverage "
                 "of the population's difference is not its own.")
    return line
