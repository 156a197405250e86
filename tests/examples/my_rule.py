"""Keep rules of one's own, as the README runs them: ``evalmc gate --rule my_rule.py:noise_floor``.

A rule is called at each look on the loops still deciding on the current candidate, a row per
loop, with the arguments its parameters name (``candidate``, ``baseline``, ``reference``,
``replaced``, ``kept``, ``look``, ``looks``), and answers per row: True/1 keep, False/0
discard, -1 look again."""

import numpy as np


def noise_floor(candidate, baseline, reference, replaced, k=2.0, report="first"):
    """keep-noise-floor rewritten: keep when the candidate's mean beats the reference by k times
    the gap between the baseline's first two runs; the reference is the baseline's first run,
    or the last kept candidate's mean once one replaced the baseline. A loop that keeps
    nothing reports the baseline's first run (``report='first'``), as keep-noise-floor does."""
    ref = np.where(replaced, np.nanmean(reference, axis=1), baseline[:, 0])
    return candidate.mean(axis=1) - ref >= k * np.abs(baseline[:, 0] - baseline[:, 1])


def ahead_by_half(candidate, reference, look, looks):
    """Keep a candidate whose mean beats the reference's by half a unit; look again while it
    is ahead by less; discard it once it falls behind."""
    gap = candidate.mean(axis=1) - np.nanmean(reference, axis=1)
    return np.where(gap >= 0.5, 1, np.where(gap > 0, -1, 0))
