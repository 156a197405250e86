"""evalmc: a Monte Carlo testbed for ML evaluation methodology."""

__version__ = "0.2.0"
