import numpy as np
import pandas as pd
import pytest

from evalmc.reproductions import PAPERS, giles1997
from evalmc.reproductions.report import Runs
from evalmc.reproductions.runner import resolve

#: Targets that hold at the quick scale (the rest are judged at the paper scale only). Not G10:
#: it misses at the paper scale (0.16 +- 0.01 against 0.3), so at 100 data sets it lands
#: within the tolerance or not by chance.
HOLD_AT_QUICK = {"G6", "G13 t-tests", "G1 K=1", "G4 K=1", "G7", "G8", "G9", "G11"}


@pytest.fixture(scope="module")
def quick():
    out = {}
    for fig in giles1997.FIGURES:
        data = fig.compute("quick", Runs(2))
        out[fig.name] = (data, fig.check(data, "quick"), fig.plot(data))
    return out


def test_registered():
    assert "giles1997" in PAPERS
    assert [f.name for _, f in resolve("giles1997")] == ["fig2", "fig3", "fig4", "fig5", "fig6",
                                                         "testsize", "fig7", "fig8"]


def test_quick_scale_targets(quick):
    checks = {c.id: c for _, found, _ in quick.values() for c in found}
    assert set(checks) == {
        "G6", "G6 FIR gains", "G6b", "G1 K=1", "G1 K=5", "G2", "G3", "G4 K=1", "G4 K=5", "G5",
        "G7", "G8", "G9", "G10", "G11", "G12 snooped", "G12 fresh", "G13 t-tests", "G13 Tukey",
        "G14"}
    missed = [i for i in HOLD_AT_QUICK if not checks[i].passed]
    assert not missed, [checks[i] for i in missed]
    for c in checks.values():
        assert c.passed or c.note, f"{c.id} fails without a reason"


def test_quick_scale_data(quick):
    mg = quick["fig2"][0]
    assert mg.groupby("network").size().to_dict() == {"MLP": 40, "FIR gains": 40}
    teacher = quick["fig4"][0]
    assert teacher.groupby("k").size().to_dict() == {1: 40, 5: 40, 10: 40, 15: 40}
    assert (teacher[["train_nmse", "test_nmse"]] > 0).all().all()
    random = quick["fig6"][0]
    assert sorted(random["n_test"].unique()) == list(giles1997.TEST_SIZES)
    acc = random[random["n_test"] == 100][[f"acc{r}" for r in range(10)]].to_numpy()
    np.testing.assert_array_equal(acc, np.round(acc))  # whole percentages of 100 points
    assert abs(acc.mean() - 50) < 4 * 5 / np.sqrt(len(acc))  # chance on random labels
    lrs = quick["fig7"][0]
    assert lrs.groupby("data_set").size().eq(len(giles1997.LEARNING_RATES)).all()


def test_quick_scale_is_deterministic(quick):
    again = giles1997.compute_fig6("quick", Runs(1))
    pd.testing.assert_frame_equal(again, quick["fig6"][0])


def _teacher_frame(skews):
    rng = np.random.default_rng(0)
    rows = []
    for k in giles1997.KS:
        v = rng.gamma(1.0, size=100) * skews.get(k, 1) + 10
        rows += [{"k": k, "run": i, "train_nmse": e, "test_nmse": e} for i, e in enumerate(v)]
    return pd.DataFrame(rows)


def test_skewness_and_median_checks_can_pass_and_fail():
    # Errors skewed right at K=1 and left at K=15 meet G2 and G3; reversed, they miss both.
    good = {c.id: c.passed for c in giles1997.check_fig4(_teacher_frame({15: -1}), "paper")
            + giles1997.check_fig5(_teacher_frame({15: -1}), "paper")}
    bad = {c.id: c.passed for c in giles1997.check_fig4(_teacher_frame({1: -1}), "paper")
           + giles1997.check_fig5(_teacher_frame({1: -1}), "paper")}
    assert good["G2"] and good["G3"] and not bad["G2"] and not bad["G3"]
