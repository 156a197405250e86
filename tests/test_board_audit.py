"""A real leaderboard audited (`evalmc leaderboard FILE`): reading battles as FastChat writes
them, the boards simulated like a real one, the logistic skills (against scipy's optimizer on
the same likelihood), the calibration's exact anchor (two models: the sign test's size under a
tie, by enumeration) and fixed-seed values of the audit and the command."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats
from scipy.special import expit

from evalmc.inputs.battles import counts, is_battles, read_battles
from evalmc.sims.fitted_board import (
    FittedArena,
    FittedItemBoard,
    davidson_tie,
    dispersion,
    fit_skills,
    prompt_sd_like,
)
from evalmc.sims.leaderboard import ItemBoard
from evalmc.study.board_audit import _table, audit_board, read_board

EXAMPLES = Path(__file__).parent / "examples"
BATTLES = EXAMPLES / "battles.jsonl"


def _write_battles(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_fastchat_winners_are_read_and_counted(tmp_path):
    csv = tmp_path / "b.csv"
    csv.write_text("model_a,model_b,winner\nx,y,model_a\ny,x,tie (bothbad)\nx,z,model_b\n"
                   "z,y,tie\n")
    frame = read_battles(csv)
    assert frame["outcome"].tolist() == [0, 2, 1, 2] and frame["prompt"].isna().all()
    models, prompts, wins, ties = counts(frame)
    assert models == ["x", "y", "z"] and prompts == [None]
    assert wins[0].tolist() == [[0, 1, 0], [0, 0, 0], [1, 0, 0]]
    assert ties[0].tolist() == [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    array = tmp_path / "b.json"
    array.write_text(json.dumps([{"model_a": "x", "model_b": "y", "winner": "model_b",
                                  "question_id": 7}]))
    assert is_battles(array) and is_battles(csv) and not is_battles(EXAMPLES / "items.csv")
    assert read_battles(array, prompt="question_id")["prompt"].tolist() == ["7"]


@pytest.mark.parametrize(("rows", "message"), [
    ([{"model_a": "x", "model_b": "y", "winner": "A"}],
     "b.jsonl line 1: winner 'A' is not one of 'model_a', 'model_b', 'tie', 'tie (bothbad)'."),
    ([{"model_a": "x", "winner": "tie"}], "b.jsonl line 1: field 'model_b' is missing"),
    ([{"model_a": "x", "model_b": "x", "winner": "tie"}], "b.jsonl line 1: model 'x' battles "
                                                          "itself."),
    ([{"model_a": "x", "model_b": "y", "winner": "tie", "prompt": "p"},
      {"model_a": "x", "model_b": "y", "winner": "tie"}],
     "b.jsonl battle 2: field 'prompt' is missing while other battles have it."),
])
def test_bad_battles_are_refused_naming_the_row(tmp_path, rows, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_battles(_write_battles(tmp_path / "b.jsonl", rows))


def test_a_fitted_arena_keeps_the_pairs_and_follows_davidson():
    battles = np.zeros((2, 3, 3), dtype=int)
    battles[0, 0, 1], battles[1, 1, 0], battles[1, 1, 2] = 30, 20, 10
    nu = davidson_tie(0.2)
    scenario = FittedArena(values=(0.6, 0.0, -0.2), battles=tuple(battles.ravel()), tie=nu)
    batch = scenario.draw(np.random.default_rng(3), 4000)
    n = batch.wins + batch.ties / 2
    assert (n[:, :, 0, 1] + n[:, :, 1, 0] == [30, 20]).all()
    assert (n[:, :, 1, 2] + n[:, :, 2, 1] == [0, 10]).all() and (n[:, :, 0, 2] == 0).all()
    # Davidson at gap 0.6: first wins w / (w + 1/w + nu), w = exp(0.3)
    w = np.exp(0.3)
    p_win = w / (w + 1 / w + nu)
    won = batch.wins[:, :, 0, 1].sum(axis=1) / 50
    assert abs(won.mean() - p_win) <= 4 * won.std(ddof=1) / np.sqrt(won.size)
    assert abs(_tie_share_at_zero(nu) - 0.2) < 1e-12


def _tie_share_at_zero(nu):
    return nu / (2 + nu)


def test_the_prompt_effect_is_recovered_from_the_spread_over_prompts():
    m, prompts = 5, 80
    battles = np.zeros((prompts, m, m), dtype=int)
    first, second = np.triu_indices(m, 1)
    battles[:, first, second] = 3
    truth = FittedArena(values=(0.4, 0.2, 0.0, -0.2, -0.4), battles=tuple(battles.ravel()),
                        tie=0.2, prompt_sd=0.8)
    rng = np.random.default_rng(5)
    plain = FittedArena(values=truth.values, battles=truth.battles, tie=0.2)
    assert abs(dispersion(*_pair(plain.draw(rng, 300))).mean() - 1.0) < 0.05
    board = truth.draw(rng, 1)
    estimate = prompt_sd_like(plain, board.wins[0], board.ties[0], rng)
    assert estimate == pytest.approx(0.7757, abs=1e-4)  # fixed seed
    estimates = [prompt_sd_like(plain, b.wins[0], b.ties[0], rng)
                 for b in (truth.draw(rng, 1) for _ in range(10))]
    assert abs(np.mean(estimates) - 0.8) < 0.15


def _pair(batch):
    return batch.wins, batch.ties


def test_skills_are_scipys_maximum_of_the_same_penalized_likelihood():
    rng = np.random.default_rng(2)
    scores = rng.random((60, 4)) < expit(np.array([1.0, 0.5, 0.0, -1.0])
                                         - rng.normal(0, 1, (60, 1)))
    skill, difficulty = fit_skills(scores)
    y = scores.astype(float)

    def loss(x):
        s, d = x[:4], x[4:]
        eta = s[None, :] - d[:, None]
        return -(y * eta - np.logaddexp(0, eta)).sum() + 0.05 * (d**2).sum() + 5e-4 * (
            s**2).sum()

    best = optimize.minimize(loss, np.zeros(64), method="BFGS", options={"gtol": 1e-9}).x
    shift = best[:4].mean()
    assert np.allclose(skill, best[:4] - shift, atol=1e-4)
    assert np.allclose(difficulty, best[4:] - shift, atol=1e-4)


def test_tiers_and_rank_sets_of_hand_made_claims():
    board = read_board(BATTLES)
    better = np.zeros((6, 6), dtype=bool)
    order = np.argsort(-board.strengths)  # birch, atlas, cedar, delta, ember, fjord
    for top in order[:2]:
        better[top, order[2:]] = True  # the top two above everyone else
    better[order[2], order[5]] = True
    table, unseparated = _table(board, better)
    assert table["model"].tolist()[:2] == ["birch", "atlas"]
    assert table["rank_set"].tolist() == ["1-2", "1-2", "3-5", "3-6", "3-6", "4-6"]
    assert table["tier"].tolist() == [1, 1, 2, 2, 2, 2] and unseparated == 2


def test_two_tied_models_calibration_meets_the_exact_sign_test_size(tmp_path):
    """Two models: the top group is both, so the tied design is the null with the board's
    battles; the Holm (sign) test's size is the exact one over the number of ties."""
    rng = np.random.default_rng(0)
    outcome = rng.choice(["model_a", "model_b", "tie"], size=60, p=[0.45, 0.35, 0.2])
    path = _write_battles(tmp_path / "two.jsonl", [
        {"model_a": "x", "model_b": "y", "winner": w} for w in outcome])
    audit = audit_board(path, ["board-holm"], n_reps=2000, progress=False)
    row = audit.calibration.iloc[0]
    share = (outcome == "tie").mean()
    size = 0.0
    for t in range(61):
        n = 60 - t
        k = np.arange(n + 1)
        p = np.minimum(1, 2 * stats.binom.cdf(np.minimum(k, n - k), n, 0.5))
        size += stats.binom.pmf(t, 60, share) * stats.binom.pmf(k, n, 0.5)[p <= 0.05].sum()
    assert audit.top_group == 2
    assert abs(row["false_claim_tied"] - size) <= 4 * np.sqrt(size * (1 - size) / 2000)


def test_fixed_seed_audit_of_the_example_arena():
    audit = audit_board(BATTLES, ["board-bootstrap", "board-holm", "board-wald"], n_reps=60,
                        progress=False)
    assert audit.board.summary == ("6 models, 1,500 battles on 100 prompts, 11% ties, "
                                   "prompt x model sd 0.44")
    assert (audit.best, audit.holds, audit.unseparated, audit.top_group) == (
        "board-bootstrap", True, 3, 3)
    assert audit.calibration["false_claim_tied"].round(4).tolist() == [0.0833, 0.0167, 0.0333]
    assert audit.table["rank_set"].tolist() == ["1-3", "1-3", "1-5", "3-6", "3-6", "4-6"]
    assert audit.extra == {"board-holm": [], "board-wald": []}


def test_an_item_board_is_fitted_and_audited(tmp_path):
    batch = ItemBoard(models=4, tied=2, spacing=0.5, items=300, clusters=10).draw(
        np.random.default_rng(4), 1)
    scores = batch.scores[0]
    rows = [(f"m{m}", f"q{k}", f"c{batch.labels[k]}", int(scores[k, m]))
            for m in range(4) for k in range(300)]
    path = tmp_path / "items.csv"
    pd.DataFrame(rows, columns=["model", "item", "topic", "score"]).to_csv(path, index=False)
    board = read_board(path, cluster="topic")
    assert board.summary == "4 models, 300 items in 10 clusters"
    assert isinstance(board.scenario, FittedItemBoard)
    assert board.models[int(np.argmax(board.strengths))] == board.models[
        int(np.argmax(scores.sum(axis=0)))]
    audit = audit_board(path, ["board-holm", "board-wald"], n_reps=40, cluster="topic",
                        progress=False)
    assert (audit.best, audit.unseparated) == ("board-holm", 2)


def test_the_command_audits_a_file(capsys):
    from evalmc.cli import main

    assert main(["leaderboard", str(BATTLES), "--procedure", "board-holm", "--reps", "30",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "Best-calibrated procedure: board-holm." in out
    assert "Models the data cannot separate from rank 1: 6." in out  # Holm claims nothing
    assert out.rstrip().endswith("Claims board-holm does not make:\n  (no other procedure)")
    assert main(["leaderboard", str(BATTLES), "--procedure", "board-holm", "--reps", "30",
                 "--quiet", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "model,strength,rank_set,tier"


@pytest.mark.parametrize(("argv", "message"), [
    (["no-such.csv"], "`FILE` must be an existing file of battles or items; got 'no-such.csv'."),
    ([str(BATTLES), "--design", "a"], "`--design` and `--plot` are for the side-by-side table; "
                                      "with FILE the boards are simulated like the file's."),
    (["--cluster", "topic"], "`--cluster` reads a real board: give its FILE."),
    ([str(BATTLES), "--alpha", "1.5"], "`alpha` must be"),
])
def test_the_command_refuses_bad_input_in_one_line(argv, message, capsys):
    from evalmc.cli import main

    assert main(["leaderboard", *argv, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"evalmc: error: {message}") and err.count("\n") == 1


def test_the_example_file_is_what_its_script_writes(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_battles",
                                                  EXAMPLES / "make_battles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path)
    assert (tmp_path / "battles.jsonl").read_bytes() == BATTLES.read_bytes()


def test_the_genuine_board_is_what_its_script_writes_from_fastchats_reviews(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_fastchat_reviews",
                                                  EXAMPLES / "make_fastchat_reviews.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path)
    shipped = EXAMPLES / "fastchat_reviews.jsonl"
    assert (tmp_path / "fastchat_reviews.jsonl").read_bytes() == shipped.read_bytes()
    frame = read_battles(shipped)
    assert len(frame) == 319 and frame["prompt"].nunique() == 80
    tally = frame.groupby("model_a")["outcome"].value_counts().unstack(fill_value=0)
    assert tally.loc[["alpaca-13b", "bard", "gpt-3.5-turbo", "llama-13b"]].values.tolist() == [
        [3, 77, 0], [8, 71, 0], [14, 65, 1], [0, 79, 1]]  # won, lost, tied against vicuna


def test_a_procedure_that_cannot_read_the_board_is_shown_and_left_out():
    audit = audit_board(EXAMPLES / "fastchat_reviews.jsonl",
                        ["board-bootstrap", "board-holm", "board-wald"], n_reps=40,
                        progress=False)
    assert audit.calibration["on_board"].tolist() == [
        "a bootstrap board had no finite fit", "read", "read"]
    assert (audit.best, audit.holds, audit.unseparated, audit.top_group) == (
        "board-wald", True, 1, 2)
    assert audit.table["rank_set"].tolist() == ["1", "2-3", "2-4", "3-5", "4-5"]
    assert audit.extra == {"board-holm": []}
    assert audit.board.summary == ("5 models, 319 battles on 80 prompts, 1% ties, "
                                   "prompt x model sd 3.00")


def test_the_genuine_item_board_is_what_its_script_writes_from_swebenchs_site(tmp_path):
    import importlib.util

    from evalmc.inputs.itemlogs import read_items

    spec = importlib.util.spec_from_file_location("make_swebench_bash_only",
                                                  EXAMPLES / "make_swebench_bash_only.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path)
    shipped = EXAMPLES / "swebench_bash_only.csv"
    assert (tmp_path / "swebench_bash_only.csv").read_bytes() == shipped.read_bytes()
    frame = read_items(shipped, cluster="repo")
    assert frame.groupby(["model", "item"]).size().eq(1).all() and len(frame) == 12 * 500
    resolved = frame.groupby("model")["score"].sum().astype(int).to_dict()
    # each system's count of resolved instances: its share on the board (%) x 5
    assert resolved == {
        "claude-opus-4-5-20251101": 372, "gemini-3-pro-preview-20251118": 371,
        "sonnet-4-5-20250929": 353, "claude-4-opus-20250514": 338, "gpt-5.1-codex": 330,
        "gpt-5.1-2025-11-13": 330, "gpt-5": 325, "claude-sonnet-4-20250514": 324,
        "minimax-m2": 305, "deepseek-v3.2-reasoner": 300, "gpt-5-mini": 299,
        "o3-2025-04-16": 292}
    sizes = frame[frame["model"] == "gpt-5"]["cluster"].value_counts()
    assert (len(sizes), sizes["django/django"], sizes["pallets/flask"]) == (12, 231, 1)


def test_the_item_bootstrap_over_items_is_the_clustered_one_with_each_item_its_own(
        monkeypatch):
    """Resampling items sums no items x items one-hot (the SWE-bench board's 500 items made
    it the audit's slowest step), and draws what resampling clusters of one item draws."""
    from evalmc.criteria import leaderboard
    from evalmc.sims.fitted_board import LabelledItemBatch

    scores = (np.random.default_rng(30).random((3, 40, 4)) < 0.6).astype(np.int8)
    own = LabelledItemBatch(scores=scores, clusters=40, groups=tuple(range(40)))
    with monkeypatch.context() as patch:
        patch.setattr(leaderboard, "_one_hot", lambda labels: pytest.fail("one-hot built"))
        items = leaderboard._resampled(own, np.random.default_rng(31), 50, clustered=False)
    np.testing.assert_array_equal(
        items, leaderboard._resampled(own, np.random.default_rng(31), 50, clustered=True))
