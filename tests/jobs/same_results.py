"""same_results.py A.h5 B.h5 [--except GROUP] - exit 0 when two sax results files hold the same results.

Same set of datasets and groups; every dataset with the same HDF5 type, shape and bytes (read
through h5py, so an enum or a string compares by value); the same dataset attributes; the same root
attributes except those describing the run itself (times, hosts, ranks, command line, merge
records); config_json compared as parsed JSON. Prints every difference found. `--except answer`
leaves out the group /answer and what is in it (jobs/merge.py does not merge it).
Run with /usr/bin/python3 (Debian's h5py).
"""
import json
import sys

import h5py
import numpy as np

RUN_ATTRS = {"start_time", "end_time", "start_unix_s", "end_unix_s", "elapsed_s", "hosts", "ranks",
             "command_line", "merged_parts", "merged_from"}


def walk(f, skip=()):
    out = {}
    f.visititems(lambda name, obj: out.__setitem__(name, obj))
    return {n: o for n, o in out.items() if n.split("/")[0] not in skip}


def attr_equal(x, y):
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return np.array_equal(np.asarray(x), np.asarray(y))
    return x == y


def compare(pa, pb, skip=()):
    diffs = []
    with h5py.File(pa, "r") as a, h5py.File(pb, "r") as b:
        oa, ob = walk(a, skip), walk(b, skip)
        for name in sorted(set(oa) ^ set(ob)):
            diffs.append(f"/{name}: only in {pa if name in oa else pb}")
        for name in sorted(set(oa) & set(ob)):
            x, y = oa[name], ob[name]
            if isinstance(x, h5py.Dataset) != isinstance(y, h5py.Dataset):
                diffs.append(f"/{name}: a dataset in one file, a group in the other")
                continue
            if isinstance(x, h5py.Dataset):
                if x.id.get_type() != y.id.get_type():
                    diffs.append(f"/{name}: HDF5 types differ (fields, enum names or sizes)")
                elif x.shape != y.shape:
                    diffs.append(f"/{name}: shapes differ ({x.shape} vs {y.shape})")
                else:
                    vx, vy = x[()], y[()]
                    if np.asarray(vx).tobytes() != np.asarray(vy).tobytes():
                        diffs.append(f"/{name}: contents differ")
            for k in sorted(set(x.attrs) | set(y.attrs)):
                if k not in x.attrs or k not in y.attrs or not attr_equal(x.attrs[k], y.attrs[k]):
                    diffs.append(f"/{name}: attribute {k} differs")
        for k in sorted((set(a.attrs) | set(b.attrs)) - RUN_ATTRS):
            if k not in a.attrs or k not in b.attrs:
                diffs.append(f"root attribute {k}: only in {pa if k in a.attrs else pb}")
            elif k == "config_json":
                if json.loads(a.attrs[k]) != json.loads(b.attrs[k]):
                    diffs.append("root attribute config_json: different configurations")
            elif not attr_equal(a.attrs[k], b.attrs[k]):
                diffs.append(f"root attribute {k}: {a.attrs[k]!r} vs {b.attrs[k]!r}")
    return diffs


def main():
    args = sys.argv[1:]
    skip = ()
    if len(args) == 4 and args[2] == "--except":
        skip = (args[3],)
        args = args[:2]
    if len(args) != 2:
        print("usage: same_results.py A.h5 B.h5 [--except GROUP]", file=sys.stderr)
        return 2
    diffs = compare(args[0], args[1], skip)
    for d in diffs:
        print(f"same_results: {d}", file=sys.stderr)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
