#!/usr/bin/python3
"""results_fields.py GOOD.h5 OUTDIR - writes damaged copies of a sax results file with h5py
(docs/reliability.md, "Results files"): a field taken out of a compound dataset, a field of the
wrong type, datasets that declare far more rows than the file holds, and baseline names empty, with a
control character or given twice. Prints one line per file: NAME|DATASET|FIELD-or-empty|KIND
(missing, type, size, name).
"""
import shutil
import sys

import h5py
import numpy as np

good, outdir = sys.argv[1], sys.argv[2]


def copy(name):
    path = f"{outdir}/{name}.h5"
    shutil.copyfile(good, path)
    return path


def rewrite(path, dset, fn):
    """Replaces dataset `dset` by fn(data) (a numpy structured array), keeping its attributes."""
    with h5py.File(path, "r+") as f:
        data = f[dset][()]
        attrs = dict(f[dset].attrs)
        del f[dset]
        new = fn(data)
        d = f.create_dataset(dset, data=new)
        for k, v in attrs.items():
            d.attrs[k] = v


def drop(field):
    def fn(data):
        names = [n for n in data.dtype.names if n != field]
        out = np.empty(data.shape, dtype=[(n, data.dtype[n]) for n in names])
        for n in names:
            out[n] = data[n]
        return out

    return fn


def retype(field, dtype):
    def fn(data):
        desc = [(n, dtype if n == field else data.dtype[n]) for n in data.dtype.names]
        out = np.zeros(data.shape, dtype=desc)
        for n in data.dtype.names:
            if n != field:
                out[n] = data[n]
        return out

    return fn


cases = []
# a field missing from each table the readers use (pareto: /pareto, /rows; report: /best, /top; eval:
# /best and /rows through the candidate; /space and /answer too)
for dset, field in [("best", "iteration_time_s"), ("top", "tp"), ("pareto", "cross_site_bytes_per_iteration"),
                    ("best_per_value", "bpv_value"), ("baseline_best", "baseline"), ("rows", "iteration_time_s"),
                    ("infeasible", "count"), ("scenarios", "scenario"), ("answer/ties", "tied"),
                    ("answer/robust", "worst_regret")]:
    p = copy(f"missing-{dset.replace('/', '-')}-{field}")
    rewrite(p, dset, drop(field))
    cases.append((p, dset, field, "missing"))
# a field of the wrong type: a string where a number is expected, an integer where a float is
for dset, field, dt in [("best", "iteration_time_s", "S8"), ("top", "mfu", "i8"), ("rows", "feasible", "f8")]:
    p = copy(f"type-{dset}-{field}")
    rewrite(p, dset, retype(field, dt))
    cases.append((p, dset, field, "type"))
# declared sizes the file cannot hold: an empty chunked, compressed /rows of 2^40 rows (the file stays
# about as small as the original), and a contiguous /top of 2^40 rows never written
for dset, chunked in [("rows", True), ("top", False)]:
    p = copy(f"size-{dset}")
    with h5py.File(p, "r+") as f:
        dt = f[dset].dtype
        del f[dset]
        if chunked:
            f.create_dataset(dset, shape=(2**40,), dtype=dt, chunks=(16384,), compression="gzip")
        else:
            f.create_dataset(dset, shape=(2**40,), dtype=dt)
    cases.append((p, dset, "", "size"))
# baseline names that the readers turn into the members of an enum and print: an empty one, one with
# a control character, one given twice (the loader refuses each in a configuration)
for what, fn in [("empty", lambda d: d.__setitem__("name", b"")),
                 ("control", lambda d: d.__setitem__("name", b"prod\x07")),
                 ("twice", None)]:
    p = copy(f"name-baseline-{what}")
    def change(data, fn=fn):
        data = data.copy()
        if fn is None:
            return np.concatenate([data, data])
        fn(data)
        return data
    rewrite(p, "space/baselines", change)
    cases.append((p, "space/baselines", "", "name"))
for p, dset, field, kind in cases:
    print(f"{p}|{dset}|{field}|{kind}")
