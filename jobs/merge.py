#!/usr/bin/env python3
"""jobs/merge.py - merge the results files of a split sweep (jobs/split.py + a job array) into one.

    jobs/merge.py DIR -o RESULTS.h5 [--force]

DIR is the directory jobs/split.py wrote; DIR/manifest.json names every part's results file
(DIR/part-NNNN/results.h5, written by jobs/sweep.sbatch) and the block of scenarios it holds.
The merged file has the datasets a single `sax sweep` of the whole configuration writes, with the
same contents (docs/results-format.md): the parts' datasets are concatenated in scenario order,
with each row's `scenario` and candidate `index` renumbered into the whole space (index =
local index + first scenario of the part x candidates per scenario; -1 stays -1), /infeasible
and the count attributes summed, /space copied (it must be the same in every part).

Root attributes: the counts, n_scenarios and config_json (the parts' effective configuration
with the whole scenario lists) are those of the whole sweep; start_time/end_time span the
parts; elapsed_s is their sum (the compute time the study took, not the wall time); ranks is
the largest part's; hosts joins the parts' hosts; command_line is this merge's; `merged_parts`
(int32) and `merged_from` (the parts' command lines) record what was merged. `sax report` and
`sax pareto` read the merged file like any other. The parts' /answer (docs/decisions.md) is not
merged: the robust candidate is chosen over all scenarios at once, which no part has seen, so the
merged file has no /answer and `sax report` shows the rest.

Needs h5py and numpy (Debian: python3-h5py python3-numpy, for /usr/bin/python3). /rows is copied
in slices of 1 MiB rows, so memory does not grow with the study. The merged file is written as
RESULTS.h5.tmp.<pid> and renamed when complete.
Exit status: 0 merged; 1 an I/O or HDF5 failure; 2 bad usage or bad input (a part missing,
unfinished or from another study: the message names the file and what differs).
"""
import argparse
import datetime
import json
import os
import shlex
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:
    print(f"merge.py: error: needs h5py and numpy ({e}); on Debian: apt-get install python3-h5py "
          "python3-numpy, then run it with /usr/bin/python3", file=sys.stderr)
    sys.exit(1)

ROW_SETS = ("best", "top", "pareto", "best_per_value", "baseline_best")
SUMMED_ATTRS = ("evaluated", "skipped", "feasible", "infeasible")
# Attributes that must agree between the parts (the rest describe each part's run).
SAME_ATTRS = ("sax_format", "sax_format_version", "sax_version", "git_revision", "store", "top_k",
              "pareto_objectives", "scenario_variables")
ROWS_SLICE = 1 << 20


class InputError(Exception):
    pass


def same(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b))


def check_part(i, path, part, first):
    """Refuses a part that does not belong with the first one (or does not hold its block)."""
    if "sax_format" not in part.attrs or part.attrs["sax_format"] != "sax-results":
        raise InputError(f"{path}: not a sax results file (no sax_format attribute 'sax-results')")
    if first is None:
        return
    for name in SAME_ATTRS:
        if not same(part.attrs.get(name), first.attrs.get(name)):
            raise InputError(f"{path}: attribute {name} is {part.attrs.get(name)!r}, but the first part "
                             f"has {first.attrs.get(name)!r}: the parts come from different sweeps")
    keys = sorted(first["space"])
    if sorted(part["space"]) != keys:
        raise InputError(f"{path}: /space holds {sorted(part['space'])}, the first part {keys}")
    for k in keys:
        if part["space"][k].dtype != first["space"][k].dtype or not same(part["space"][k][()],
                                                                         first["space"][k][()]):
            raise InputError(f"{path}: /space/{k} differs from the first part's: the parts do not sweep "
                             f"the same design space")
    for name in ROW_SETS + ("scenarios", "infeasible"):
        if part[name].dtype != first[name].dtype:
            raise InputError(f"{path}: /{name} has another row type than the first part's")
    if "rows" in part and "rows" in first and part["rows"].dtype != first["rows"].dtype:
        raise InputError(f"{path}: /rows has another row type than the first part's")


def candidates_per_scenario(f):
    n = 1
    for k in f["space"]:
        if k != "baselines":
            n *= int(f["space"][k].shape[0])
    return n


def renumber(rows, first_scenario, per_scenario):
    """The part's rows with scenario and index in the whole sweep's numbering (in place)."""
    names = rows.dtype.names
    if "scenario" in names:
        rows["scenario"] += first_scenario
    if "index" in names:
        idx = rows["index"]
        idx[idx >= 0] += first_scenario * per_scenario
    return rows


def create_like(dst, name, src, n):
    """A dataset `name` in dst of n rows with src's HDF5 type, layout, filters and attributes."""
    dcpl = src.id.get_create_plist()
    maxshape = (h5py.h5s.UNLIMITED,) if src.maxshape[0] is None else (n,)
    space = h5py.h5s.create_simple((n,), maxshape)
    dsid = h5py.h5d.create(dst.id, name.encode(), src.id.get_type(), space, dcpl=dcpl)
    d = h5py.Dataset(dsid)
    copy_attrs(src, d)
    return d


def copy_attrs(src, dst, skip=()):
    for name in src.attrs:
        if name not in skip:
            dst.attrs.create(name, src.attrs[name], dtype=src.attrs.get_id(name).dtype)


def effective_scenarios(manifest, parts):
    """space.scenarios of the whole sweep, in sax's effective form, from the parts' config_json."""
    names = manifest["scenario_variables"]
    counts = manifest["scenario_counts"]
    full = {n: [None] * c for n, c in zip(names, counts)}
    eff_names = None
    for entry, f in parts:
        cfg = json.loads(f.attrs["config_json"])
        scen = cfg["space"].get("scenarios", {})
        if eff_names is None:
            eff_names = list(scen)
        for n, eff in zip(names, eff_names):
            lo, hi = entry["slices"][n]
            vals = scen.get(eff, [])
            if len(vals) != hi - lo:
                raise InputError(f"{f.filename}: config_json has {len(vals)} values of {eff}, the manifest "
                                 f"gives this part {hi - lo}")
            full[n][lo:hi] = vals
    return {eff: full[n] for n, eff in zip(names, eff_names or [])}


def merge(directory, out, force):
    mpath = os.path.join(directory, "manifest.json")
    try:
        with open(mpath, encoding="utf-8") as f:
            manifest = json.load(f)
    except OSError as e:
        raise InputError(f"{mpath}: cannot read: {e.strerror} (is {directory} a directory of jobs/split.py?)")
    except json.JSONDecodeError as e:
        raise InputError(f"{mpath}: not JSON: {e.msg}")
    if manifest.get("format") != "sax-split" or manifest.get("version") != 1:
        raise InputError(f"{mpath}: not a manifest of jobs/split.py (format sax-split, version 1)")
    entries = sorted(manifest["parts"], key=lambda p: p["first_scenario"])
    expect = 0
    for e in entries:
        if e["first_scenario"] != expect:
            raise InputError(f"{mpath}: the parts do not tile the scenarios (part {e['task']} starts at "
                             f"scenario {e['first_scenario']}, expected {expect})")
        expect += e["scenarios"]
    if expect != manifest["scenarios"]:
        raise InputError(f"{mpath}: the parts hold {expect} scenarios, the study {manifest['scenarios']}")
    if os.path.exists(out) and not force:
        raise InputError(f"{out} exists; pass --force to overwrite it")

    parts, missing = [], []
    try:
        first = None
        for e in entries:
            path = os.path.join(directory, e["results"])
            if not os.path.exists(path):
                ckpt = " (interrupted: its checkpoint exists; resubmit that array task)" \
                    if os.path.exists(path + ".ckpt") else ""
                missing.append(f"task {e['task']}: {path}{ckpt}")
                continue
            f = h5py.File(path, "r")
            parts.append((e, f))
            check_part(e["task"], path, f, first)
            if first is None:
                first = f
            if int(f.attrs["n_scenarios"]) != e["scenarios"]:
                raise InputError(f"{path}: holds {int(f.attrs['n_scenarios'])} scenarios, the manifest gives "
                                 f"part {e['task']} {e['scenarios']}: it was not swept from "
                                 f"{os.path.join(directory, e['config'])}")
        if missing:
            raise InputError("parts without results (array tasks not finished):\n  " + "\n  ".join(missing))
        write(manifest, parts, out)
    finally:
        for _, f in parts:
            f.close()


def write(manifest, parts, out):
    first = parts[0][1]
    per_scenario = candidates_per_scenario(first)
    tmp = f"{out}.tmp.{os.getpid()}"
    try:
        with h5py.File(tmp, "w") as dst:
            first.copy(first["space"], dst, "space")
            # row sets and scenarios: concatenation in scenario order, renumbered
            for name in ROW_SETS + ("scenarios",):
                n = sum(f[name].shape[0] for _, f in parts)
                d = create_like(dst, name, first[name], n)
                at = 0
                for e, f in parts:
                    rows = f[name][()]
                    if name == "scenarios":
                        rows["scenario"] += e["first_scenario"]
                    else:
                        renumber(rows, e["first_scenario"], per_scenario)
                    if rows.shape[0]:
                        d[at:at + rows.shape[0]] = rows
                    at += rows.shape[0]
            inf = first["infeasible"][()]
            for _, f in parts[1:]:
                other = f["infeasible"][()]
                if not same(other["reason"], inf["reason"]):
                    raise InputError(f"{f.filename}: /infeasible lists other reasons than the first part")
                inf["count"] += other["count"]
            create_like(dst, "infeasible", first["infeasible"], inf.shape[0])[:] = inf
            if "rows" in first:
                n = sum(f["rows"].shape[0] for _, f in parts)
                d = create_like(dst, "rows", first["rows"], n)
                at = 0
                for e, f in parts:
                    src = f["rows"]
                    for lo in range(0, src.shape[0], ROWS_SLICE):
                        rows = renumber(src[lo:lo + ROWS_SLICE], e["first_scenario"], per_scenario)
                        d[at:at + rows.shape[0]] = rows
                        at += rows.shape[0]
            write_root_attrs(manifest, parts, dst)
        os.replace(tmp, out)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def write_root_attrs(manifest, parts, dst):
    first = parts[0][1]
    copy_attrs(first, dst)
    a = dst.attrs

    def put(name, value):
        a.create(name, value, dtype=first.attrs.get_id(name).dtype)

    for name in SUMMED_ATTRS:
        put(name, sum(int(f.attrs[name]) for _, f in parts))
    put("n_scenarios", manifest["scenarios"])
    cfg = json.loads(first.attrs["config_json"])
    if manifest["scenario_variables"]:
        cfg["space"]["scenarios"] = effective_scenarios(manifest, parts)
    put("config_json", json.dumps(cfg, indent=1))
    starts = [float(f.attrs["start_unix_s"]) for _, f in parts]
    ends = [float(f.attrs["end_unix_s"]) for _, f in parts]
    put("start_unix_s", min(starts))
    put("end_unix_s", max(ends))
    put("start_time", iso(min(starts)))
    put("end_time", iso(max(ends)))
    put("elapsed_s", sum(float(f.attrs["elapsed_s"]) for _, f in parts))
    put("ranks", max(int(f.attrs["ranks"]) for _, f in parts))
    hosts = []
    for _, f in parts:
        for h in str(f.attrs["hosts"]).split(","):
            if h and h not in hosts:
                hosts.append(h)
    put("hosts", ",".join(hosts))
    put("command_line", " ".join(shlex.quote(w) for w in ["jobs/merge.py"] + sys.argv[1:]))
    a.create("merged_parts", len(parts), dtype=np.int32)
    a.create("merged_from", [str(f.attrs["command_line"]) for _, f in parts], dtype=h5py.string_dtype())


def iso(unix_s):
    return datetime.datetime.fromtimestamp(unix_s, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    ap = argparse.ArgumentParser(
        prog="merge.py",
        description="merge the results files of a sweep split by jobs/split.py into one results file")
    ap.add_argument("dir", help="the directory jobs/split.py wrote (with manifest.json)")
    ap.add_argument("-o", "--output", required=True, help="the merged results file")
    ap.add_argument("--force", action="store_true", help="overwrite an existing output file")
    a = ap.parse_args()
    try:
        merge(a.dir, a.output, a.force)
    except InputError as e:
        print(f"merge.py: error: {e}", file=sys.stderr)
        sys.exit(2)
    except (OSError, KeyError) as e:
        print(f"merge.py: error: {e}", file=sys.stderr)
        sys.exit(1)
    print(f"merge.py: {a.output}: the {manifest_parts(a.dir)} parts of {a.dir}")


def manifest_parts(directory):
    with open(os.path.join(directory, "manifest.json"), encoding="utf-8") as f:
        return len(json.load(f)["parts"])


if __name__ == "__main__":
    main()
