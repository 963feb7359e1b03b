#!/usr/bin/env python3
"""h5_same.py A.h5 B.h5 [C.h5 ...] - exits 0 when every results file holds byte-identical datasets
(raw bytes of every dataset, including the compound rows, and its shape and type) and identical
attributes, apart from the provenance of the run itself: when it ran, where, on how many ranks and
with which command line (docs/reliability.md, "Determinism"). Prints the first difference otherwise.
Debian's h5py: run with /usr/bin/python3 (stack.md section 14); exits 77 without h5py."""
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:
    print("SKIP: no h5py/numpy for this python (%s): %s" % (sys.executable, e))
    sys.exit(77)

# Root attributes that describe the run, not its results.
RUN_ATTRS = {"command_line", "hosts", "ranks", "start_time", "end_time", "start_unix_s", "end_unix_s",
             "elapsed_s"}


def contents(path):
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                data = obj[()]
                raw = data.tobytes() if isinstance(data, np.ndarray) else repr(data).encode()
                out["dataset " + name] = (obj.shape, obj.dtype.str, str(obj.dtype), raw)
            for k, v in obj.attrs.items():
                out["attribute %s@%s" % (name, k)] = repr(v)
        for k, v in f.attrs.items():
            if k not in RUN_ATTRS:
                out["attribute /@" + k] = repr(v)
        f.visititems(visit)
    return out


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    ref = contents(sys.argv[1])
    datasets = sum(k.startswith("dataset ") for k in ref)
    status = 0
    for other in sys.argv[2:]:
        got = contents(other)
        for key in sorted(set(ref) | set(got)):
            if ref.get(key) != got.get(key):
                what = "missing" if key not in got else "extra" if key not in ref else "different"
                print("DIFFERENT: %s vs %s: %s %s" % (sys.argv[1], other, key, what))
                status = 1
                break
        else:
            print("same: %s and %s (%d datasets, %d attributes compared)" %
                  (sys.argv[1], other, datasets, len(ref) - datasets))
    return status


sys.exit(main())
