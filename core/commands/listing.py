"""``evalmc list``: scenarios, criteria and estimators, with their parameters and defaults."""

from __future__ import annotations

from evalmc.commands import add_output_options, check_writable, json_text, write


def register(sub) -> None:
    """Add ``evalmc list`` to `sub`, with :func:`run` as its default; its options: ``--format`` and
    ``--out``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``evalmc`` parser (``add_subparsers()``).

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import listing
    >>> sub = argparse.ArgumentParser(prog="evalmc").add_subparsers()
    >>> listing.register(sub)
    >>> args = sub.choices["list"].parse_args(["--format", "json"])
    >>> args.format, args.run is listing.run
    ('json', True)
    """
    parser = sub.add_parser("list", help="scenarios, criteria and estimators, with parameters "
                                         "and defaults")
    add_output_options(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    """The scenarios, criteria and estimators, with their parameters and defaults.

    Parameters
    ----------
    args : argparse.Namespace
        The options of the parser :func:`register` adds.

    Returns
    -------
    int
        The exit status: 0.

    Examples
    --------
    >>> import json
    >>> import pathlib
    >>> import tempfile
    >>> from evalmc.cli import main
    >>> tmp = tempfile.TemporaryDirectory()
    >>> out = pathlib.Path(tmp.name) / "list.json"
    >>> main(["list", "--format", "json", "--out", str(out)])
    0
    >>> spec = json.loads(out.read_text())
    >>> list(spec), spec["scenarios"]["normal"]["parameters"]["n_a"]
    (['scenarios', 'criteria', 'estimators'], {'default': 10, 'doc': 'runs of model A'})
    >>> spec["estimators"]["t-interval"]["estimand"]
    'mean-a'
    >>> tmp.cleanup()
    """
    if args.out:
        check_writable(args.out)
    from evalmc.criteria.registry import CRITERIA
    from evalmc.estimators.registry import ESTIMATORS
    from evalmc.sims import SCENARIOS

    scenarios = {
        name: {"description": entry.description, "yields": list(entry.facts["yields"]),
               "parameters": {p.name: {"default": p.default, "doc": p.doc}
                              for p in entry.params}}
        for name, entry in SCENARIOS.items()
    }
    criteria = {name: {"description": c.description, "paired": c.facts.get("paired", False),
                       "data": c.facts.get("needs", "scores"),
                       "parameters": {p.name: {"default": p.default, "doc": p.doc}
                                      for p in c.params}}
                for name, c in CRITERIA.items()}
    estimators = {name: {"description": e.description, "estimand": e.facts.get("estimand"),
                         "paired": e.facts.get("paired", False),
                         "data": e.facts.get("needs", "scores"),
                         "parameters": {p.name: {"default": p.default, "doc": p.doc}
                                        for p in e.params}}
                  for name, e in ESTIMATORS.items()}
    if args.format == "json":
        write(json_text({"scenarios": scenarios, "criteria": criteria,
                         "estimators": estimators}), args.out)
    elif args.format == "csv":
        import pandas as pd

        rows = [{"kind": "scenario", "name": name, "parameter": key, "default": p["default"],
                 "description": p["doc"]}
                for name, spec in scenarios.items() for key, p in spec["parameters"].items()]
        for kind, specs in (("criterion", criteria), ("estimator", estimators)):
            for name, spec in specs.items():
                rows.append({"kind": kind, "name": name, "parameter": "", "default": "",
                             "description": spec["description"]})
                rows += [{"kind": kind, "name": name, "parameter": key,
                          "default": p["default"], "description": p["doc"]}
                         for key, p in spec["parameters"].items()]
        write(pd.DataFrame(rows).to_csv(index=False), args.out)
    else:
        write("\n".join(_table_lines(scenarios, criteria, estimators)), args.out)
    return 0


def _table_lines(scenarios, criteria, estimators):
    yield "Scenarios (--scenario NAME --param KEY=VALUE):"
    for name, spec in scenarios.items():
        yield f"\n  {name}: {spec['description']}"
        for key, p in spec["parameters"].items():
            yield f"    {key:<10} {p['default']!r:<10} {p['doc']}"
    yield ("\nCriteria (--criterion NAME, NAME(KEY=VALUE,...) with the parameters below it, or "
           "path/to/file.py:function):")
    for name, spec in criteria.items():
        needs = " [needs paired samples]" if spec["paired"] else ""
        if spec["data"] != "scores":
            where = [name for name, scen in scenarios.items() if spec["data"] in scen["yields"]]
            label = "scenarios" if len(where) > 1 else "scenario"
            needs += f" [works on {spec['data']}: {label} {', '.join(where)}]"
        yield f"  {name:<16} {spec['description']}{needs}"
        for key, p in spec["parameters"].items():
            yield f"    {key:<10} {p['default']!r:<10} {p['doc']}"
    yield ("\nEstimators (evalmc coverage --estimator NAME, NAME(KEY=VALUE,...), or "
           "path/to/file.py:function; --target what they estimate):")
    for name, spec in estimators.items():
        facts = f" [estimates {spec['estimand']}]" if spec["estimand"] else ""
        if spec["paired"]:
            facts += " [needs paired samples]"
        if spec["data"] != "scores":
            facts += f" [works on {spec['data']}]"
        yield f"  {name:<16} {spec['description']}{facts}"
        for key, p in spec["parameters"].items():
            yield f"    {key:<10} {p['default']!r:<10} {p['doc']}"
