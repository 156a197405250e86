import pytest

from evalmc.reproductions.runner import reproduce


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("bajgar")
    checks = reproduce("bajgar2018", scale="quick", out=out, log=lambda line: None)
    return out, {(c.id, c.claim): c for c in checks}


def test_every_target_is_reported(quick):
    out, checks = quick
    ids = {i for i, _ in checks}
    assert ids == {f"B{i}" for i in range(1, 13)}
    report = (out / "REPORT.md").read_text()
    for name in ("boon-normal", "fig1", "fig2", "fig3"):
        assert (out / "bajgar2018" / f"{name}.png").exists()
        assert f"### {name}:" in report


def test_quick_scale_outcomes(quick):
    _, checks = quick
    passed = {key[0] for key, c in checks.items() if c.passed}
    # Met at the quick scale: the constants, the expected best single run at m = 1 and 20,
    # the flat low-correlation curve and the pool summaries.
    assert {"B1", "B2", "B3", "B5", "B8", "B10", "B11"} <= passed
    # Missed, each with its reason in the report: the reconstructed pool's tails (B4, B12 min),
    # and the m close to n = 5 where Boo_5 rests on a few runs (B6, B7, B9).
    for key, c in checks.items():
        if not c.passed:
            assert key[0] in {"B4", "B6", "B7", "B9", "B12"} and c.note


def test_unknown_figure_is_refused():
    with pytest.raises(ValueError, match="unknown figure 'fig9' of bajgar2018"):
        reproduce("bajgar2018.fig9")
