"""evalmc core: criteria, Monte Carlo study engine, summaries and the command line."""
