"""The subcommands of ``evalmc``, one row each: the module that registers it. Like every registry
(:mod:`evalmc.registry`), it imports no numerical library: ``evalmc --help`` reads it.
"""

#: Modules of the subcommands, in the order ``evalmc --help`` lists them.
COMMANDS = (
    "evalmc.commands.listing",
    "evalmc.commands.calibrate",
    "evalmc.commands.coverage",
    "evalmc.commands.reproduce",
    "evalmc.commands.bench",
    "evalmc.commands.boon",
    "evalmc.commands.describe",
    "evalmc.commands.compare",
    "evalmc.commands.ranks",
    "evalmc.commands.leaderboard",
    "evalmc.commands.gate",
    "evalmc.commands.audit",
    "evalmc.commands.plan",
    "evalmc.commands.lesson",
    "evalmc.mcp_server",  # the tools' server: beside cli.py, whose main it runs for each call
)
