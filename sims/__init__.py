"""Data-generating processes: validated front ends over Numba kernels.

``SCENARIOS`` maps each scenario's name to its class; ``get_scenario(name)`` looks one up.
"""

from evalmc.sims.base import Batch, Scenario
from evalmc.sims.benchmarks import BENCHMARK_SCENARIOS
from evalmc.sims.classifiers import CLASSIFIER_SCENARIOS
from evalmc.sims.items import ITEM_SCENARIOS
from evalmc.sims.learning import LEARNING_SCENARIOS
from evalmc.sims.multidataset import MULTI_DATASET_SCENARIOS
from evalmc.sims.pools import Pool
from evalmc.sims.scores import SCORE_SCENARIOS

SCENARIOS: dict[str, type[Scenario]] = {cls.name: cls for cls in SCORE_SCENARIOS}
SCENARIOS.update({cls.name: cls for cls in BENCHMARK_SCENARIOS})
SCENARIOS.update({cls.name: cls for cls in CLASSIFIER_SCENARIOS})
SCENARIOS.update({cls.name: cls for cls in ITEM_SCENARIOS})
SCENARIOS.update({cls.name: cls for cls in MULTI_DATASET_SCENARIOS})
SCENARIOS.update({cls.name: cls for cls in LEARNING_SCENARIOS})
SCENARIOS[Pool.name] = Pool


def get_scenario(name: str) -> type[Scenario]:
    """Return the scenario class called `name`, or raise ValueError listing the valid names.

    Examples
    --------
    >>> import evalmc
    >>> normal = evalmc.get_scenario("normal")
    >>> normal(n_a=5).truth, [p.name for p in normal.parameters()][:3]
    ('null', ['n_a', 'n_b', 'mean_a'])
    """
    try:
        return SCENARIOS[name]
    except KeyError:
        valid = ", ".join(sorted(SCENARIOS))
        raise ValueError(f"unknown scenario {name!r}; valid names: {valid}.") from None


__all__ = ["Batch", "Scenario", "SCENARIOS", "get_scenario"]
