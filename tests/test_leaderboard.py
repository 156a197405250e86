"""Leaderboards: the arena and item-board scenarios, the rank procedures and the study of how
often their claims are wrong. Exact anchors (two models: an exact sign test's size by
enumeration), independent fits (scipy on the battles' likelihood), the battle bootstrap against
a plain one over battles, and fixed-seed regression values."""

import naive
import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import expit

from evalmc.criteria import get_criterion
from evalmc.criteria.leaderboard import _resampled, bootstrap, max_t
from evalmc.sims.bradley_terry import connected, fit, sandwich
from evalmc.sims.leaderboard import Arena, ItemBoard, strengths, true_rank_sets
from evalmc.study.leaderboard import board_metrics, leaderboard_table, run_leaderboard

PROCEDURES = ["board-bootstrap", "board-prompt-bootstrap", "board-wald", "board-holm",
              "board-max-t"]


def _tie_share(nu):
    return nu / (2 + nu)


@pytest.mark.parametrize("procedure", ["board-holm", "board-anchor"])
@pytest.mark.parametrize("position", [0.0, 0.4])
def test_two_tied_models_sign_test_size_is_the_exact_binomial_one(position, procedure):
    """Two equal models, 25 independent battles with ties (and a position bias, which the
    random order of a battle cancels): Holm's tiers are one exact sign test, whose size is
    known by enumerating every outcome; every claim is false."""
    n, nu, reps = 25, 0.5, 4000
    exact = naive.sign_rejection_enumerated(n, (1 - _tie_share(nu)) / 2, _tie_share(nu),
                                            [0.05])[0]
    frame = run_leaderboard("arena", {"models": 2, "tied": 2, "battles": n, "tie": nu,
                                      "position": position}, [procedure], n_reps=reps,
                            seed=11, progress=False).iloc[0]
    assert 0.02 < exact < 0.05
    assert abs(frame["false_claim"] - exact) <= 3 * np.sqrt(exact * (1 - exact) / reps)
    assert frame["coverage"] == 1 - frame["false_claim"]


@pytest.mark.parametrize("procedure", ["board-holm", "board-anchor"])
def test_two_tied_models_on_items_mcnemar_size_is_the_exact_one(procedure):
    """Two equal models on 40 independent items: an item is discordant with probability
    E[2 p (1 - p)], p = expit(s - d), d ~ N(0, 1), each way alike; McNemar's exact test is the
    sign test on the discordant items, its size known by enumeration."""
    n, reps = 40, 4000
    q = integrate.quad(lambda d: 2 * expit(-d) * (1 - expit(-d)) * stats.norm.pdf(d),
                       -12, 12)[0]
    exact = naive.sign_rejection_enumerated(n, q / 2, 1 - q, [0.05])[0]
    frame = run_leaderboard("item-board", {"models": 2, "tied": 2, "items": n, "clusters": 0,
                                           "sd_cluster": 0.0}, [procedure], n_reps=reps,
                            seed=12, progress=False).iloc[0]
    assert abs(frame["false_claim"] - exact) <= 3 * np.sqrt(exact * (1 - exact) / reps)


WINS = np.array([[0, 9, 7, 12], [6, 0, 8, 10], [5, 7, 0, 9], [3, 4, 8, 0]])
TIES = np.array([[0, 3, 2, 1], [3, 0, 4, 2], [2, 4, 0, 3], [1, 2, 3, 0]])


def test_bradley_terry_fit_equals_scipy_on_the_battles():
    battles = naive.battles_of_counts(WINS, TIES)
    np.testing.assert_allclose(fit(WINS, TIES), naive.bradley_terry_battles(battles, 4),
                               atol=1e-6)
    stacked = fit(np.stack([WINS, WINS.T]), np.stack([TIES, TIES]))
    np.testing.assert_allclose(stacked[1], -stacked[0], atol=1e-9)  # wins turned around


def test_no_finite_fit_where_a_model_never_lost():
    wins = WINS.copy()
    wins[:, 0] = 0  # model 0 never lost, never tied
    ties = TIES.copy()
    ties[0, :] = ties[:, 0] = 0
    assert not connected(wins + ties) and np.isnan(fit(wins, ties)).all()
    assert connected(WINS)


@pytest.mark.parametrize("clustered", [False, True])
def test_sandwich_equals_the_battle_level_one(clustered):
    rng = np.random.default_rng(3)
    per_prompt = rng.multinomial(WINS, np.full(3, 1 / 3))  # (4, 4, 3): battles on 3 prompts
    wins = np.moveaxis(per_prompt, -1, 0)
    ties = np.moveaxis(rng.multinomial(np.triu(TIES), np.full(3, 1 / 3)), -1, 0)
    ties = ties + np.swapaxes(ties, 1, 2)
    theta = fit(wins.sum(axis=0), ties.sum(axis=0))
    rows, prompt = [], []
    for p in range(3):
        part = naive.battles_of_counts(wins[p], ties[p])
        rows.append(part)
        prompt += [p] * len(part)
    battles = np.concatenate(rows)
    expected = naive.bradley_terry_sandwich(battles, 4, theta,
                                            np.array(prompt) if clustered else None)
    got = (sandwich(theta, wins, ties, prompts=True) if clustered
           else sandwich(theta, wins.sum(axis=0), ties.sum(axis=0)))
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_battle_bootstrap_matches_a_plain_one_over_battles_in_distribution():
    """Resampling battles one by one and refitting (the plain way) and drawing the counts
    from their multinomial law and fitting the table (ours) give one law of the strengths."""
    rng = np.random.default_rng(4)
    batch = Arena(models=3, tied=1, spacing=0.3, battles=150).draw(rng, 1)
    wins, ties = batch.wins[0, 0], batch.ties[0, 0]
    ours = _resampled(batch, np.random.default_rng(5), 3000, clustered=False)[0]
    plain = naive.battle_bootstrap_rounds(naive.battles_of_counts(wins, ties), 3, 1000,
                                          np.random.default_rng(6))
    for model in range(3):
        assert stats.ks_2samp(ours[:, model], plain[:, model]).pvalue > 0.001
    np.testing.assert_allclose(np.quantile(ours, [0.025, 0.975], axis=0),
                               np.quantile(plain, [0.025, 0.975], axis=0), atol=0.06)


def test_the_arena_rule_is_read_off_percentile_intervals():
    batch = Arena(models=4, tied=1, spacing=0.4, battles=800).draw(np.random.default_rng(8), 3)
    rounds = _resampled(batch, np.random.default_rng(9), 100, clustered=False)
    low, high = np.quantile(rounds, [0.025, 0.975], axis=1)
    claims = bootstrap().claims(batch, np.random.default_rng(9))
    np.testing.assert_array_equal(claims.better, low[:, :, None] > high[:, None, :])
    assert claims.better.any()


def test_max_t_critical_value_holds_its_level_on_a_known_gaussian():
    """Under equal strengths and a known covariance, the max-|t| intervals claim something
    with probability 1 - level (the estimates drawn from the covariance itself)."""
    rng = np.random.default_rng(10)
    cov = np.array([[1.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.0]])
    from evalmc.criteria.leaderboard import _max_t

    est = rng.multivariate_normal(np.zeros(3), cov, size=4000)
    any_claim = _max_t(est, np.broadcast_to(cov, (4000, 3, 3)), rng, 2000, 0.95).any(axis=(1, 2))
    assert abs(any_claim.mean() - 0.05) <= 4 * np.sqrt(0.05 * 0.95 / 4000)


def test_board_measures_on_a_hand_made_board():
    values = np.array([1.0, 1.0, 0.0])  # models 0 and 1 tied on top
    assert [r.tolist() for r in true_rank_sets(values)] == [[1, 1, 3], [2, 2, 3]]
    better = np.zeros((3, 3, 3), dtype=bool)
    better[1, 0, 2] = True  # right: 0 above 2
    better[2, 0, 1] = True  # wrong: 0 and 1 are tied
    out = board_metrics(better, np.zeros(3, dtype=bool), values)
    assert out["false_claim"].tolist() == [False, False, True]
    assert out["coverage"].tolist() == [True, True, False]
    assert out["coverage_low"].tolist() == [True, True, False]  # 1's set [2, 3] lacks rank 1
    np.testing.assert_allclose(out["marginal"], [1.0, 1.0, 2 / 3])  # 1's [2, 3] misses [1, 2]
    np.testing.assert_allclose(out["length"], [3.0, 7 / 3, 7 / 3])
    np.testing.assert_allclose(out["power"], [0.0, 0.5, 0.0])
    bottom = np.zeros((1, 3, 3), dtype=bool)
    bottom[0, 1, 2] = True  # wrong: 1 and 2 are tied at the bottom, ranks {2, 3}
    out = board_metrics(bottom, np.zeros(1, dtype=bool), np.array([1.0, 0.0, 0.0]))
    assert (out["false_claim"][0], out["coverage"][0], out["coverage_low"][0]) == (
        True, False, True)  # 1's set [1, 2] holds its low rank 2, not all of [2, 3]
    np.testing.assert_allclose(out["marginal"], [2 / 3])


def test_strengths_are_evenly_spaced_with_a_tied_top():
    np.testing.assert_allclose(strengths(5, 0.5, 3), [1.0, 1.0, 1.0, 0.5, 0.0])
    assert Arena(spacing=0.0).truth == "null" and Arena().truth == "alternative"


@pytest.mark.parametrize(("kind", "args", "message"), [
    (Arena, {"prompt_sd": 1.0}, "`prompt_sd` must be 0 when `prompts` is 0"),
    (Arena, {"tied": 11}, "`tied` must be"),
    (Arena, {"pairing": "greedy"}, "`pairing` must be one of 'uniform', 'adaptive'"),
    (Arena, {"width": 0.0}, "`width` must be"),
    (ItemBoard, {"clusters": 1}, "`clusters` must be 0"),
    (ItemBoard, {"models": 1}, "`models` must be"),
])
def test_bad_boards_are_refused_naming_the_parameter(kind, args, message):
    with pytest.raises(ValueError, match=message):
        kind(**args)


def test_bad_procedures_are_refused_naming_the_parameter():
    with pytest.raises(ValueError, match="`n_boot` must be"):
        bootstrap(n_boot=1)
    with pytest.raises(ValueError, match="`level` must be"):
        max_t(level=1.0)
    with pytest.raises(ValueError, match="criterion 'board-holm' needs leaderboard"):
        run_leaderboard("normal", None, ["board-holm"], n_reps=10, progress=False)


def test_a_procedure_as_a_criterion_rejects_where_it_claims():
    batch = Arena(models=4, battles=800).draw(np.random.default_rng(1), 20)
    crit = get_criterion("board-wald")
    result = crit(batch, None)
    assert result.decision_only and crit.decision_only
    np.testing.assert_array_equal(result.decisions(0.05),
                                  crit.test.claims(batch).better.any(axis=(1, 2)))


def test_results_do_not_depend_on_the_workers():
    args = ("arena", {"models": 4, "battles": 300}, ["board-bootstrap(n_boot=20)"])
    one = run_leaderboard(*args, n_reps=60, seed=2, block_size=20, progress=False)
    two = run_leaderboard(*args, n_reps=60, seed=2, block_size=20, n_jobs=2, progress=False)
    assert one.equals(two)


BOARDS = {
    "arena": (Arena(models=4, tied=2, battles=400),
              [[0, 27, 23, 36], [33, 0, 25, 28], [19, 25, 0, 32], [20, 21, 29, 0]]),
    "prompts": (Arena(models=4, tied=2, battles=400, prompts=10, prompt_sd=1.0, position=0.3),
                [[0, 35, 27, 44], [19, 0, 26, 30], [26, 30, 0, 40], [12, 25, 21, 0]]),
    "adaptive": (Arena(models=4, tied=2, battles=400, pairing="adaptive", chunks=4),
                 [[0, 53, 20, 15], [36, 0, 12, 21], [31, 18, 0, 37], [23, 33, 33, 0]]),
    "items": (ItemBoard(models=4, tied=2, items=60, clusters=6, tau=0.3),
              [[41, 39, 36, 42], [33, 43, 29, 25]]),
}

#: Rank sets (low, high) of two boards drawn from seed 5, the procedures' draws from seed 6.
RANK_SETS = {
    "arena": {
        "board-bootstrap": [[[1, 2, 2, 2], [1, 1, 1, 1]], [[1, 4, 4, 4], [4, 4, 4, 4]]],
        "board-prompt-bootstrap": [[[1, 2, 2, 2], [1, 1, 1, 1]], [[1, 4, 4, 4], [4, 4, 4, 4]]],
        "board-wald": [[[1, 1, 2, 2], [1, 1, 1, 1]], [[2, 4, 4, 4], [4, 4, 4, 4]]],
        "board-holm": [[[1, 1, 1, 1], [1, 1, 1, 1]], [[4, 4, 4, 4], [4, 4, 4, 4]]],
        "board-max-t": [[[1, 1, 1, 2], [1, 1, 1, 1]], [[3, 4, 4, 4], [4, 4, 4, 4]]]},
    "prompts": {
        "board-bootstrap": [[[1, 1, 1, 2], [1, 2, 1, 3]], [[4, 3, 4, 4], [2, 4, 3, 4]]],
        "board-prompt-bootstrap": [[[1, 1, 1, 1], [1, 1, 1, 2]], [[4, 4, 4, 4], [3, 4, 4, 4]]],
        "board-wald": [[[1, 1, 1, 1], [1, 1, 1, 2]], [[4, 4, 4, 4], [3, 4, 4, 4]]],
        "board-holm": [[[1, 1, 1, 2], [1, 1, 1, 2]], [[4, 3, 4, 4], [3, 4, 4, 4]]],
        "board-max-t": [[[1, 1, 1, 1], [1, 1, 1, 2]], [[4, 4, 4, 4], [3, 4, 4, 4]]]},
    "adaptive": {
        "board-bootstrap": [[[1, 1, 1, 1], [1, 3, 1, 1]], [[4, 4, 4, 4], [4, 4, 3, 3]]],
        "board-prompt-bootstrap": [[[1, 1, 1, 1], [1, 3, 1, 1]], [[4, 4, 4, 4], [4, 4, 3, 3]]],
        "board-wald": [[[1, 1, 1, 1], [1, 3, 1, 1]], [[4, 4, 4, 4], [4, 4, 3, 3]]],
        "board-holm": [[[1, 1, 1, 1], [1, 1, 1, 1]], [[4, 4, 4, 4], [4, 4, 4, 4]]],
        "board-max-t": [[[1, 1, 1, 1], [1, 3, 1, 1]], [[4, 4, 4, 4], [4, 4, 3, 3]]]},
    "items": {
        "board-bootstrap": [[[1, 1, 1, 1], [1, 1, 2, 2]], [[4, 4, 4, 4], [4, 2, 4, 4]]],
        "board-prompt-bootstrap": [[[1, 1, 1, 1], [1, 1, 1, 2]], [[4, 4, 4, 4], [4, 3, 4, 4]]],
        "board-wald": [[[1, 1, 1, 1], [1, 1, 1, 1]], [[4, 4, 4, 4], [4, 4, 4, 4]]],
        "board-holm": [[[1, 1, 1, 1], [1, 1, 1, 2]], [[4, 4, 4, 4], [4, 3, 4, 4]]],
        "board-max-t": [[[1, 1, 1, 1], [1, 1, 1, 2]], [[4, 4, 4, 4], [4, 3, 4, 4]]]},
}


@pytest.mark.parametrize("board", list(BOARDS))
def test_fixed_seed_boards_and_rank_sets(board):
    scenario, second = BOARDS[board]
    batch = scenario.draw(np.random.default_rng(5), 2)
    if board == "items":
        assert batch.scores.sum(axis=1).tolist() == second
    else:
        assert batch.wins.sum(axis=1)[1].tolist() == second
        assert int(batch.wins.sum() + batch.ties.sum() / 2) == 2 * scenario.battles
    for name, expected in RANK_SETS[board].items():
        claims = get_criterion(name).test.claims(batch, np.random.default_rng(6))
        assert [r.tolist() for r in claims.rank_sets()] == expected, name


def test_without_reused_prompts_the_prompt_bootstrap_is_the_battle_bootstrap():
    batch = BOARDS["arena"][0].draw(np.random.default_rng(5), 2)
    one, two = (get_criterion(n).test.claims(batch, np.random.default_rng(6))
                for n in ("board-bootstrap", "board-prompt-bootstrap"))
    np.testing.assert_array_equal(one.better, two.better)


def test_quick_table_fixed_seed_values():
    """Design (a) with Holm's tiers at the quick scale (the committed table's row)."""
    table = leaderboard_table("a", procedures=["board-holm"], progress=False)
    row = table.iloc[0]
    assert (row["models"], row["boards"], row["failed"], row["false_claim"]) == (10, 400, 0, 0.0)
    assert (round(row["length"], 4), round(row["power"], 4)) == (9.224, 0.0924)


@pytest.mark.slow
def test_the_committed_quick_table_is_current(tmp_path):
    """figures/leaderboard/ is what ``write_leaderboard`` makes at the quick scale, seed 0."""
    from pathlib import Path

    from evalmc.study.leaderboard import write_leaderboard

    write_leaderboard(tmp_path, n_jobs=2, progress=False)
    committed = Path(__file__).parent.parent / "figures" / "leaderboard"
    for name in ("table.csv", "table.md"):
        assert (tmp_path / name).read_text() == (committed / name).read_text()


@pytest.mark.slow
def test_paper_scale_meets_its_monte_carlo_errors():
    """At the paper scale every rate's MCSE is at most 0.005 where the rate is below 0.1 or
    above 0.9, and at most 0.01 elsewhere."""
    table = leaderboard_table(scale="paper", n_jobs=2, progress=False)
    for name in ("false_claim", "coverage"):
        rate, mcse = table[name], table[f"{name}_mcse"]
        extreme = (rate < 0.1) | (rate > 0.9)
        assert (mcse[extreme] <= 0.005).all() and (mcse[~extreme] <= 0.01).all()


@pytest.mark.parametrize(("argv", "message"), [
    (["--reps", "0"], "`--reps` must be at least 1; got 0."),
    (["--procedure", "welch-t", "--design", "a", "--reps", "5"],
     "criterion 'welch-t' needs scores; scenario 'arena' yields battles, leaderboard."),
])
def test_the_command_refuses_bad_input_in_one_line(argv, message, capsys):
    from evalmc.cli import main

    assert main(["leaderboard", *argv, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == f"evalmc: error: {message}\n"


def test_the_command_prints_the_table_and_draws_it(tmp_path, capsys):
    from evalmc.cli import main

    plot = tmp_path / "board.png"
    assert main(["leaderboard", "--design", "d", "--procedure", "board-holm", "--reps", "20",
                 "--quiet", "--format", "json", "--plot", str(plot)]) == 0
    import json

    rows = json.loads(capsys.readouterr().out)
    assert [(r["design"], r["procedure"], r["models"], r["boards"]) for r in rows] == [
        ("d", "board-holm", 20, 20)]
    assert plot.stat().st_size > 0


def test_arena_outcomes_follow_davidson_with_position_bias():
    """Model 0 against model 1 (0.5 stronger), ties nu = 0.5, a bonus of 0.3 to the model shown
    first: the pooled shares of wins, losses and ties are the mean of Davidson's probabilities
    at gaps 0.5 + 0.3 and 0.5 - 0.3, within 4 standard errors."""
    scenario = Arena(models=2, tied=1, spacing=0.5, battles=20_000, tie=0.5, position=0.3)
    batch = scenario.draw(np.random.default_rng(13), 5)
    wins, ties = batch.wins.sum(axis=(0, 1)), batch.ties.sum(axis=(0, 1))
    n = 5 * 20_000
    observed = np.array([wins[0, 1], wins[1, 0], ties[0, 1]]) / n

    def davidson(gap, nu=0.5):
        terms = np.array([np.exp(gap / 2), np.exp(-gap / 2), nu])
        return terms / terms.sum()

    expected = (davidson(0.8) + davidson(0.2)) / 2
    assert (np.abs(observed - expected) <= 4 * np.sqrt(expected * (1 - expected) / n)).all()


def test_item_board_accuracy_is_the_logistic_item_models():
    """A model's expected accuracy is E expit(s - d - e), d ~ N(0, 1) and e ~ N(0, 0.5^2) (its
    item's and its cluster's difficulty); averaged over 400 boards within 4 standard errors
    of the boards' own spread."""
    scenario = ItemBoard(models=3, tied=1, spacing=1.0, items=100, clusters=10)
    scores = scenario.draw(np.random.default_rng(14), 400).scores.mean(axis=1)
    sd = np.sqrt(1.25)
    for m, s in enumerate(scenario.strengths):
        expected = integrate.quad(lambda x, s=s: expit(s - x) * stats.norm.pdf(x, 0, sd),
                                  -15, 15)[0]
        assert abs(scores[:, m].mean() - expected) <= 4 * scores[:, m].std() / np.sqrt(400)


def test_adaptive_pairing_gives_close_pairs_more_battles():
    """Under adaptive pairing the tied top pair meets far more often than the best and the worst
    model (uniform pairing: as often)."""
    adaptive = Arena(pairing="adaptive").draw(np.random.default_rng(15), 50)
    uniform = Arena().draw(np.random.default_rng(15), 50)
    for batch, ratio in ((adaptive, 2.0), (uniform, None)):
        met = (batch.wins + np.swapaxes(batch.wins, 2, 3) + batch.ties).sum(axis=(0, 1))
        if ratio is None:
            assert abs(met[0, 1] - met[0, 9]) <= 4 * np.sqrt(met[0, 1] + met[0, 9])
        else:
            assert met[0, 1] > ratio * met[0, 9]


def test_prompt_bootstrap_equals_refitting_the_resampled_prompts_battles():
    """With the same draws of prompts (P prompts drawn with replacement per round), each
    round's strengths are the scipy fit of the battles of the prompts drawn, each as often as
    it was drawn."""
    scenario = Arena(models=3, tied=1, spacing=0.3, battles=240, prompts=8, prompt_sd=1.0)
    batch = scenario.draw(np.random.default_rng(16), 1)
    ours = _resampled(batch, np.random.default_rng(17), 20, clustered=True)[0]
    weight = np.random.default_rng(17).multinomial(8, np.full(8, 1 / 8), size=(1, 20))[0]
    per_prompt = [naive.battles_of_counts(batch.wins[0, p], batch.ties[0, p]) for p in range(8)]
    for b in range(20):
        battles = np.concatenate([per_prompt[p] for p in range(8) for _ in range(weight[b, p])])
        np.testing.assert_allclose(ours[b], naive.bradley_terry_battles(battles, 3), atol=1e-6)
