"""Boards of continuous item scores and a user's own rank procedure (`evalmc leaderboard`):
the Gaussian item board, the sign test on continuous pairs (against scipy's binomtest and the
exact size of a two-model board), the latent model fitted to a board (its expected scores are
the board's means; it recovers the variances it was drawn with), the audit of the example
file, and a user procedure that re-implements board-holm giving its numbers exactly."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from evalmc.criteria.board_user import UserRankProcedure
from evalmc.criteria.leaderboard import _won, holm_sign
from evalmc.sims.fitted_scores import FittedScoreBoard, fit_scores
from evalmc.sims.leaderboard import ItemBoard
from evalmc.study.board_audit import audit_board, read_board
from evalmc.study.leaderboard import run_leaderboard

EXAMPLES = Path(__file__).parent / "examples"
SCORES = EXAMPLES / "scores.csv"
MINE = f"{EXAMPLES / 'my_rank_procedure.py'}:holm_sign"


def test_the_example_file_is_what_its_script_writes(tmp_path):
    subprocess.run([sys.executable, str(EXAMPLES / "make_scores.py"), str(tmp_path)],
                   check=True)
    assert (tmp_path / "scores.csv").read_bytes() == SCORES.read_bytes()


def test_gaussian_item_board_scores_are_the_logit_plus_noise():
    board = ItemBoard(models=3, tied=1, spacing=1.0, items=400, clusters=0, sd=0.0,
                      sd_cluster=0.0, scores="gaussian", noise=2.0)
    scores = board.draw(np.random.default_rng(3), 50).scores
    assert scores.dtype == float
    residual = scores - board.strengths
    # mean within 4 standard errors of 0, variance of noise 2 within 4 of its standard error
    assert abs(residual.mean()) < 4 * 2.0 / np.sqrt(residual.size)
    assert abs(residual.var() - 4.0) < 4 * 4.0 * np.sqrt(2 / residual.size)
    with pytest.raises(ValueError, match="`scores` must be one of"):
        ItemBoard(scores="graded")


def test_the_sign_test_reads_continuous_pairs_as_scipys_binomtest():
    batch = ItemBoard(models=2, tied=1, spacing=0.3, items=60, clusters=0,
                      scores="gaussian").draw(np.random.default_rng(0), 40)
    better = holm_sign().claims(batch).better
    for r in range(40):
        above = int((batch.scores[r, :, 0] > batch.scores[r, :, 1]).sum())
        reject = stats.binomtest(above, 60).pvalue <= 0.05
        assert better[r, 0, 1] == (reject and above > 30)
        assert better[r, 1, 0] == (reject and above < 30)
    # on 0/1 scores the decisive items are McNemar's discordant ones, as before
    binary = ItemBoard(models=3, items=50).draw(np.random.default_rng(1), 2)
    s = binary.scores.astype(float)
    assert np.array_equal(_won(binary), np.einsum("rki,rkj->rij", s, 1 - s))


def test_two_tied_gaussian_models_meet_the_exact_sign_test_size():
    n = 30
    k = np.arange(n + 1)
    p = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(k, n - k), n, 0.5))
    size = float(stats.binom.pmf(k, n, 0.5)[p <= 0.05].sum())  # exact: no equal scores
    frame = run_leaderboard("item-board", {"models": 2, "tied": 2, "items": n, "clusters": 0,
                                           "scores": "gaussian"}, ["board-holm"], n_reps=2000,
                            seed=5, progress=False)
    row = frame.iloc[0]
    assert row["false_claim"] == 0.0475  # fixed seed
    assert abs(row["false_claim"] - size) < 4 * np.sqrt(size * (1 - size) / 2000)


def test_the_fitted_board_keeps_each_models_mean_and_recovers_its_variances():
    truth = FittedScoreBoard(values=(0.3, 0.0, -0.3), groups=tuple(np.arange(2000) // 20),
                             cluster=0.2, interaction=0.1, item=0.3, model_item=0.4,
                             levels=tuple(np.linspace(0, 1, 41)),
                             cuts=tuple(stats.norm.ppf(np.arange(1, 41) / 41)))
    boards = truth.draw(np.random.default_rng(2), 12).scores
    fits = [fit_scores(scores, truth.groups) for scores in boards]
    board = FittedScoreBoard(values=tuple(fits[0]["values"]), groups=truth.groups,
                             levels=tuple(fits[0]["levels"]), cuts=tuple(fits[0]["cuts"]))
    np.testing.assert_allclose(board.expected(), boards[0].mean(axis=0), atol=1e-9)
    found = np.array([[fit[name] for name in ("cluster", "interaction", "item", "model_item")]
                      for fit in fits])
    assert np.round(found[0], 3).tolist() == [0.236, 0.084, 0.291, 0.39]  # fixed seed
    error = found.std(axis=0, ddof=1) / np.sqrt(len(fits))
    assert (np.abs(found.mean(axis=0) - [0.2, 0.1, 0.3, 0.4]) < 4 * error).all()


def test_the_example_board_is_read_as_continuous_and_audited():
    board = read_board(SCORES, cluster="topic")
    assert isinstance(board.scenario, FittedScoreBoard)
    assert board.summary.startswith("6 models, 300 items in 30 clusters, continuous scores in "
                                    "[0.02, 0.987]")
    means = board.batch.scores[0].mean(axis=0)
    assert np.array_equal(np.argsort(board.strengths), np.argsort(means))
    audit = audit_board(SCORES, ["board-holm", "board-prompt-bootstrap", MINE], n_reps=40,
                        cluster="topic", progress=False)
    calibration = audit.calibration.set_index("procedure")
    assert (audit.best, audit.unseparated) == ("board-prompt-bootstrap", 4)  # fixed seed
    mine = calibration.loc[MINE].drop("on_board")
    assert mine.equals(calibration.loc["board-holm"].drop("on_board"))
    assert audit.extra["board-holm"] == audit.extra[MINE]


def test_my_procedure_gives_board_holms_numbers_on_every_design_and_an_arena_audit():
    for scenario, params in (("arena", {"models": 5, "battles": 800, "prompts": 40,
                                        "prompt_sd": 0.5}),
                             ("item-board", {"models": 5, "items": 100, "scores": "gaussian"}),
                             ("item-board", {"models": 5, "items": 100})):
        frame = run_leaderboard(scenario, params, ["board-holm", MINE], n_reps=60, seed=1,
                                progress=False)
        numbers = frame.drop(columns="procedure").to_numpy()
        assert np.array_equal(numbers[0], numbers[1], equal_nan=True), scenario
    audit = audit_board(EXAMPLES / "battles.jsonl", ["board-holm", MINE], n_reps=20,
                        progress=False)
    rows = audit.calibration.drop(columns="procedure").to_numpy()
    assert np.array_equal(rows[0], rows[1]) and audit.extra[MINE] == []


def test_a_procedure_that_cannot_read_a_board_fails_it_and_draws_from_the_blocks_stream():
    def coin(scores, rng):
        "The first model better than the second, unless a draw below 0.2 fails the board."
        if rng.random() < 0.2:
            return None
        better = np.zeros((scores.shape[1],) * 2, dtype=bool)
        better[0, 1] = True
        return better

    with pytest.warns(Warning, match="failed in 40 of 200 .* could not read this board"):
        frame = run_leaderboard("item-board", {"models": 3, "items": 20, "tied": 3},
                                [coin], n_reps=200, seed=0, progress=False)
    row = frame.iloc[0]
    assert (row["failed"], row["false_claim"]) == (40, 1.0)  # fixed seed
    assert abs(row["failed"] - 40) < 4 * np.sqrt(200 * 0.2 * 0.8)
    assert UserRankProcedure(coin).forms == ("items",)


@pytest.mark.parametrize(("source", "message"), [
    ("def f(x):\n    return None\n",
     "takes neither `wins` (battles) nor `scores` (items); a rank procedure is called"),
    ("def f(scores):\n    return None\n", "reads items; scenario 'arena' holds battles"),
    ("def f(wins):\n    return [[True]]\n", "returned an array of shape (1, 1), not (10, 10) "
                                            "on board 0; it returns an M x M array of bools"),
    ("import numpy as np\ndef f(wins):\n    return np.ones(wins.shape[1:], bool)\n",
     "returned a model better than itself on board 0"),
    ("import numpy as np\ndef f(wins):\n    return np.full(wins.shape[1:], 0.5)\n",
     "returned values of type float64 that are not bools (or 0 and 1)"),
    ("def f(wins):\n    raise RuntimeError('no\\nsuch')\n",
     "raised on board 0: RuntimeError: no such; a rank procedure is called once per board"),
])
def test_a_bad_procedure_stops_the_command_in_one_line(tmp_path, capsys, source, message):
    from evalmc.cli import main

    path = tmp_path / "bad.py"
    path.write_text(source)
    assert main(["leaderboard", "--design", "a", "--procedure", f"{path}:f", "--reps", "3",
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("evalmc: error: `procedure` ") and message in err
    assert err.count("\n") == 1
