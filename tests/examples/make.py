"""Write the example files the README's commands read, into the folder given (default: here).

``runs.csv`` and ``pairs.csv`` are simulated, not real results; ``teacher_runs.csv`` is the test
NMSE of the networks of ``figures/giles1997/fig4.csv`` (teacher 0, K = 1 and K = 15) in long
format. ``tests/test_readme.py`` checks that this script writes the files shipped here.
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]


def runs(rng) -> pd.DataFrame:
    """60 runs of one model: validation and test accuracy (%), correlation 0.6."""
    val, test = rng.multivariate_normal([60.0, 60.5], [[4.0, 2.4], [2.4, 4.0]], 60).T
    return pd.DataFrame({"seed": np.arange(60), "val": val.round(2), "test": test.round(2)})


def pairs(rng) -> pd.DataFrame:
    """30 seeds of models A and B (accuracy, %), A better by 0.8 on average, one tie."""
    b = rng.normal(75.0, 1.5, 30).round(2)
    a = (b + rng.normal(0.8, 1.5, 30)).round(2)
    a[7] = b[7]
    return pd.DataFrame({"seed": np.arange(30), "A": a, "B": b})


def teacher_runs() -> pd.DataFrame:
    """Test NMSE of 100 networks per K on the teacher task, K = 1 and K = 15, long format."""
    fig4 = pd.read_csv(ROOT / "figures" / "giles1997" / "fig4.csv")
    keep = fig4[(fig4["teacher"] == 0) & fig4["k"].isin([1.0, 15.0])]
    return pd.DataFrame({"model": "K" + keep["k"].astype(int).astype(str),
                         "run": keep["run"], "test_nmse": keep["test_nmse"]})


def main(folder: Path) -> None:
    rng = np.random.default_rng(2018)
    runs(rng).to_csv(folder / "runs.csv", index=False)
    pairs(rng).to_csv(folder / "pairs.csv", index=False)
    teacher_runs().to_csv(folder / "teacher_runs.csv", index=False)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)
