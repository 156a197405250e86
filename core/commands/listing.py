"""``evalmc list``: scenarios and criteria, with their parameters and defaults."""

from __future__ import annotations

import json


def register(sub) -> None:
    parser = sub.add_parser("list", help="scenarios and criteria, with parameters and defaults")
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.set_defaults(run=run)


def run(args) -> int:
    from evalmc.criteria import CRITERIA
    from evalmc.sims import SCENARIOS

    scenarios = {
        name: {"description": cls.description,
               "parameters": {f.name: {"default": f.default, "doc": f.metadata["doc"]}
                              for f in cls.parameters()}}
        for name, cls in SCENARIOS.items()
    }
    criteria = {name: {"description": c.description, "paired": c.paired,
                       "data": getattr(c, "data", "scores")}
                for name, c in CRITERIA.items()}
    if args.format == "json":
        print(json.dumps({"scenarios": scenarios, "criteria": criteria}, indent=2))
        return 0
    print("Scenarios (--scenario NAME --param KEY=VALUE):")
    for name, spec in scenarios.items():
        print(f"\n  {name}: {spec['description']}")
        for key, p in spec["parameters"].items():
            print(f"    {key:<10} {p['default']!r:<10} {p['doc']}")
    print("\nCriteria (--criterion NAME, or path/to/file.py:function):")
    for name, spec in criteria.items():
        needs = " [needs paired samples]" if spec["paired"] else ""
        if spec["data"] != "scores":
            needs += f" [works on {spec['data']}: scenario paired-classifiers]"
        print(f"  {name:<16} {spec['description']}{needs}")
    return 0
