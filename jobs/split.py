#!/usr/bin/env python3
"""jobs/split.py - split one sweep into parts along its scenarios, for a Slurm job array.

    jobs/split.py CONFIG.json --parts N -o DIR

writes DIR/part-0000.json ... (copies of CONFIG.json whose space.scenarios lists are cut to one
block of scenarios each) and DIR/manifest.json (which scenarios each part holds), and prints the
two commands that follow:

    SAX_PARTS=DIR sbatch --array=0-<parts-1> jobs/sweep.sbatch   # one array task per part
    jobs/merge.py DIR -o RESULTS.h5                                # once every task is done

Why scenarios: `sax sweep` numbers candidates with the scenario as the slowest digit and reduces
every scenario on its own (best, top K, Pareto front, best per value and per baseline), so a block
of consecutive scenarios is an independent sweep and jobs/merge.py can put the parts back together
into exactly the file one job would have written (docs/running.md).

How: the scenario variables are v1..vn (the first varies slowest) with n1..nn values. The parts
fix v1..v(d-1) to one value each and cut vd into contiguous slices, where d is the first variable
at which there are enough combinations for N parts; every part is then a contiguous range of
scenario numbers. So N is an upper bound: a space with fewer scenarios than N gets one part per
scenario, and some N give fewer parts (the manifest and the printed command give the count).

Only the Python standard library is used. Exit status: 0 written; 2 bad usage or bad input
(the message names the file and what is wrong); 1 the files could not be written.
"""
import argparse
import json
import math
import os
import sys


def fail(msg, status=2):
    print("split.py: error: " + msg, file=sys.stderr)
    sys.exit(status)


def plan(sizes, parts):
    """Blocks of scenarios for at most `parts` parts, as per-variable (lo, hi) value slices.

    sizes[i] is the number of values of scenario variable i (slowest first). Returns a list of
    (offset, count, slices): offset is the block's first scenario number, count its scenarios.
    """
    if not sizes:
        return [(0, 1, [])]
    parts = min(parts, math.prod(sizes))
    # d: first variable at which the combinations of v1..vd reach `parts`
    d, prefix = 0, 1
    while d < len(sizes) - 1 and prefix * sizes[d] < parts:
        prefix *= sizes[d]
        d += 1
    n_d = sizes[d]
    cuts = min(n_d, max(1, parts // prefix))
    inner = math.prod(sizes[d + 1:])
    blocks = []
    for p in range(prefix):
        # the fixed values of v1..v(d-1) for prefix combination p (mixed radix, slowest first)
        fixed, rest = [], p
        for i in reversed(range(d)):
            fixed.append(rest % sizes[i])
            rest //= sizes[i]
        fixed.reverse()
        for c in range(cuts):
            lo, hi = c * n_d // cuts, (c + 1) * n_d // cuts
            slices = [(v, v + 1) for v in fixed] + [(lo, hi)] + [(0, n) for n in sizes[d + 1:]]
            blocks.append(((p * n_d + lo) * inner, (hi - lo) * inner, slices))
    return blocks


def main():
    ap = argparse.ArgumentParser(
        prog="split.py",
        description="split a sax sweep into parts along its scenarios, for a Slurm job array",
        epilog="then: SAX_PARTS=DIR sbatch --array=0-<parts-1> jobs/sweep.sbatch, "
        "and jobs/merge.py DIR -o RESULTS.h5",
    )
    ap.add_argument("config", help="the sweep's configuration file (with a space section)")
    ap.add_argument("--parts", type=int, required=True, help="at most this many parts (array tasks)")
    ap.add_argument("-o", "--output", required=True, help="directory for the parts and manifest.json")
    ap.add_argument("--force", action="store_true", help="overwrite an existing manifest in the directory")
    a = ap.parse_args()

    if a.parts < 1:
        fail(f"--parts: expected a positive number of parts, found {a.parts}")
    try:
        with open(a.config, encoding="utf-8") as f:
            cfg = json.load(f)
    except OSError as e:
        fail(f"{a.config}: cannot read: {e.strerror}")
    except json.JSONDecodeError as e:
        fail(f"{a.config}: not JSON: {e.msg} at line {e.lineno} column {e.colno}")
    space = cfg.get("space") if isinstance(cfg, dict) else None
    if not isinstance(space, dict):
        fail(f'{a.config}: "space": expected an object (the sweep\'s design space), found none')
    scen = space.get("scenarios", {})
    if not isinstance(scen, dict):
        fail(f'{a.config}: "space.scenarios": expected an object of value lists, found {type(scen).__name__}')
    names = list(scen)
    for name in names:
        if not isinstance(scen[name], list) or not scen[name]:
            fail(f'{a.config}: "space.scenarios.{name}": expected a non-empty list of values, found '
                 f"{json.dumps(scen[name])}")
    sizes = [len(scen[n]) for n in names]
    blocks = plan(sizes, a.parts)

    manifest_path = os.path.join(a.output, "manifest.json")
    if os.path.exists(manifest_path) and not a.force:
        fail(f"{manifest_path} exists: these parts may have results already; pass --force to split again")
    try:
        os.makedirs(a.output, exist_ok=True)
        parts = []
        for i, (offset, count, slices) in enumerate(blocks):
            part = json.loads(json.dumps(cfg))
            if names:
                part["space"]["scenarios"] = {n: scen[n][lo:hi] for n, (lo, hi) in zip(names, slices)}
            name = f"part-{i:04d}"
            with open(os.path.join(a.output, name + ".json"), "w", encoding="utf-8") as f:
                json.dump(part, f, indent=2)
                f.write("\n")
            parts.append({
                "task": i,
                "config": name + ".json",
                "results": f"{name}/results.h5",
                "first_scenario": offset,
                "scenarios": count,
                "slices": {n: list(s) for n, s in zip(names, slices)},
            })
        manifest = {
            "format": "sax-split",
            "version": 1,
            "config": os.path.abspath(a.config),
            "scenario_variables": names,
            "scenario_counts": sizes,
            "scenarios": math.prod(sizes),
            "parts": parts,
        }
        with open(manifest_path, "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=2)
            f.write("\n")
    except OSError as e:
        fail(f"{a.output}: cannot write the parts: {e.strerror}", 1)

    n = len(blocks)
    if n == 1 and a.parts > 1:
        print(f"split.py: note: {a.config} has {math.prod(sizes)} scenario(s) in a block that cannot be cut "
              "further; one part holds everything (use more ranks in one job instead)", file=sys.stderr)
    print(f"split.py: {math.prod(sizes)} scenarios of {a.config} in {n} parts under {a.output}/")
    print(f"  submit: SAX_PARTS={a.output} sbatch --array=0-{n - 1} jobs/sweep.sbatch")
    print(f"  merge:  jobs/merge.py {a.output} -o RESULTS.h5")


if __name__ == "__main__":
    main()
