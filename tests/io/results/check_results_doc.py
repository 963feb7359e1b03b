"""Reads a fresh results file with h5py exactly as docs/results-format.md says, taking what to
expect from the document itself (its tables and its Python snippets), so that the document and the
files cannot drift apart:

- every dataset the "Datasets" tables list exists, nothing else does, and each has the shape its
  row says, with the counts of the shape column derived here from the configuration and the sweep's
  --json output (not from sax's writer);
- every field of the "Row fields" table and of /answer's leading fields has the documented HDF5 type
  in every dataset that has it; every enum field has the documented names, and every stored value of
  every enum field of /rows decodes to a name;
- /space/baselines holds int32 -1 where the baseline leaves a key free (the enum fields name -1
  `any`) and the configuration's value where it fixes one;
- each ```python block of the document runs unchanged next to the file (named results.h5), and the
  pandas snippet leaves no enum column of /rows undecoded.

usage: check_results_doc.py SAX CONFIG.json docs/results-format.md WORKDIR
Exit 0 = all checks hold, 1 = a check failed, 77 = h5py, numpy or pandas missing (CTest skip).
"""
import contextlib
import io
import json
import math
import os
import re
import subprocess
import sys

try:
    import h5py
    import numpy as np
    import pandas  # noqa: F401  (the document's pandas snippet needs it)
except ImportError as exc:  # pragma: no cover
    print(f"skipping: {exc}")
    sys.exit(77)

KEYS = ["tp", "pp", "dp", "cp", "ep", "vpp", "micro_batch", "schedule", "recompute", "sequence_parallel", "zero",
        "order", "layer_split", "decoder_first_pipeline_num_layers", "decoder_last_pipeline_num_layers", "transport", "connections", "channels", "buffer_size", "p2p_chunk_size",
        "p2p_channels", "algorithm", "compression"]
NAMED = {"schedule", "recompute", "sequence_parallel", "order", "layer_split", "transport", "algorithm",
         "compression"}

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def doc_tables(doc):
    """Every markdown table as (heading above it, header cells, rows as cell lists)."""
    out, heading, current = [], None, None
    for line in doc.splitlines():
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        if line.startswith("|"):
            if current is None:
                current = (heading, cells(line), [])
                out.append(current)
            elif not re.match(r"^\|[-| ]+\|$", line.strip()):
                current[2].append(cells(line))
        else:
            current = None
    return out


def ticked(text):
    return re.findall(r"`([^`]+)`", text)


def dtype_matches(dt, doc_type):
    enum = h5py.check_enum_dtype(dt)
    if doc_type == "int64":
        return dt == np.dtype("<i8") and enum is None
    if doc_type == "int32":
        return dt == np.dtype("<i4") and enum is None
    if doc_type == "float64":
        return dt == np.dtype("<f8")
    if doc_type == "enum":
        return enum is not None and dt == np.dtype("<i4")
    if doc_type == "enum int8":
        return dt == np.dtype(bool)  # h5py reads the FALSE/TRUE enum as numpy bool
    if doc_type == "string":
        return dt.kind == "S"
    return False


def datasets(f):
    names = []
    f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    return names


def check_shapes(f, tables, counts):
    documented = set()
    for heading, header, rows in tables:
        for row in rows:
            if len(row) < 3 or not re.match(r"^`/[a-z0-9_/<>]+`$", row[0]):
                continue
            name, shape = row[0].strip("`/"), row[1].strip("`")
            m = re.match(r"^\((.+),\)$", shape)
            check(m is not None, f"/{name}: shape {shape!r} is not a 1-D tuple")
            if not m:
                continue
            expr = m.group(1).replace("×", "*")
            targets = [name.replace("<key>", k) for k in KEYS] if "<key>" in name else [name]
            for t in targets:
                documented.add(t)
                if t not in f:
                    check(t == "answer/oblivious" and not counts["oblivious"], f"/{t} documented, not in the file")
                    continue
                env = dict(counts, n_values_of_key=counts["values_of"].get(t.split("/")[-1], 0))
                want = eval(expr, {"__builtins__": {}}, env)  # noqa: S307 (the document's own arithmetic)
                check(f[t].shape == (want,), f"/{t}: shape {f[t].shape}, the document says ({expr},) = ({want},)")
    for d in datasets(f):
        check(d in documented, f"/{d} is in the file but not in docs/results-format.md")
    return documented


def check_types(f, tables):
    def fields(pick):
        return {r[0].strip("`"): r for h, head, rows in tables if pick(h or "", head) for r in rows}
    row_fields = fields(lambda h, head: h == "Row fields")
    answer_fields = fields(lambda h, head: "/answer" in h and head[:2] == ["field", "HDF5 type"])
    check(len(row_fields) > 40 and len(answer_fields) >= 18, "the document's field tables were found")
    seen = set()
    for d in datasets(f):
        dt = f[d].dtype
        is_row = "index" in (dt.names or ())  # a compound with the row fields
        for field in dt.names or ():
            doc = answer_fields.get(field) if d.startswith("answer/") else None
            doc = doc or (row_fields.get(field) if is_row else None)
            if doc is None:
                continue
            seen.add(field)
            check(dtype_matches(dt[field], doc[1]), f"/{d}.{field}: {dt[field]} is not the documented {doc[1]}")
            enum = h5py.check_enum_dtype(dt[field])
            if doc[1] == "enum" and enum is not None and field not in ("order", "baseline"):
                for name in ticked(doc[3]):
                    check(name in enum, f"/{d}.{field}: documented name {name!r} not in {sorted(enum)}")
            if doc[1] == "enum" and field == "order":
                check(enum.get("other") == -1, f"/{d}.order: -1 is named other")
    check(set(row_fields) <= seen, f"row fields never found: {set(row_fields) - seen}")
    check(set(answer_fields) <= seen, f"/answer fields never found: {set(answer_fields) - seen}")
    # every enum value stored in /rows decodes to a name
    rows = f["rows"][:]
    for field in rows.dtype.names:
        enum = h5py.check_enum_dtype(f["rows"].dtype[field])
        if enum is not None:
            names = {v: k for k, v in enum.items()}
            check(all(int(v) in names for v in np.unique(rows[field])), f"/rows.{field}: a value without a name")


def check_baselines(f, cfg):
    b = f["space/baselines"]
    check(b.dtype["name"].kind == "S" and b.dtype["name"].itemsize == 32, "baselines name: 32-byte string")
    rows = b[:]
    for i, (name, fixed) in enumerate(cfg["space"]["baselines"].items()):
        check(rows[i]["name"].decode() == name, f"baseline {i} name")
        for k in KEYS:
            dt = b.dtype[k]
            check(dt == np.dtype("<i4"), f"baselines.{k} is int32")
            enum = h5py.check_enum_dtype(dt)
            if k in NAMED:
                check(enum is not None and enum.get("any") == -1, f"baselines.{k}: enum with any = -1")
            v = int(rows[i][k])
            if k not in fixed:
                check(v == -1, f"baseline {name}.{k}: -1 where it is free, found {v}")
            elif k in NAMED:
                want = "-".join(fixed[k]) if k == "order" else str(fixed[k]).lower()
                check({x: y for y, x in enum.items()}.get(v) == want, f"baseline {name}.{k}: {want}")
            else:
                check(v == fixed[k], f"baseline {name}.{k} = {fixed[k]}")


def run_snippets(doc, work):
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    check(len(blocks) >= 3, f"the document has its Python snippets ({len(blocks)})")
    here = os.getcwd()
    os.chdir(work)
    try:
        for i, code in enumerate(blocks):
            ns = {}
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    exec(compile(code, f"results-format.md python block {i + 1}", "exec"), ns)  # noqa: S102
            except Exception as exc:  # noqa: BLE001 (any failure of a documented snippet is a finding)
                failures.append(f"python block {i + 1} of the document fails: {exc!r}")
                continue
            if "pd" in ns and "rows" in ns:  # the pandas snippet: no enum column left as integers
                f = ns["f"]
                for col in f["rows"].dtype.names:
                    enum = h5py.check_enum_dtype(f["rows"].dtype[col])
                    if enum is not None:
                        got = ns["rows"][col]
                        check(got.dtype == object and got.notna().all() and set(got) <= set(enum),
                              f"the pandas snippet leaves enum column {col} undecoded")
    finally:
        os.chdir(here)


def main(sax, config, doc_path, work):
    os.makedirs(work, exist_ok=True)
    with open(config) as f:
        cfg = json.load(f)
    cfg["space"].update({"tp": [2, 4, 8], "pp": [4, 8], "vpp": [1, 2], "zero": [1], "recompute": ["selective", "full"],
                         "schedule": ["1f1b", "interleaved"], "transport": ["roce-sr", "tcp"], "connections": [1, 4]})
    small = os.path.join(work, "small.json")
    with open(small, "w") as f:
        json.dump(cfg, f)
    h5 = os.path.join(work, "results.h5")  # the name the snippets open
    top_k = 5
    p = subprocess.run([sax, "sweep", small, "-o", h5, "--force", "--store", "all", "--top", str(top_k), "--json"],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        print(f"FAILED: sax sweep: exit {p.returncode}\n{p.stderr[-2000:]}")
        return 1
    summary = json.loads(p.stdout)
    doc = open(doc_path, encoding="utf-8").read()
    tables = doc_tables(doc)
    with h5py.File(h5, "r") as f:
        space = cfg["space"]
        values_of = {k: len(space[k]) if k in space else 1 for k in KEYS}
        n_scenarios = math.prod(len(v) for v in space["scenarios"].values())
        check(int(f.attrs["n_scenarios"]) == n_scenarios and int(f.attrs["top_k"]) == top_k, "root attributes")
        rows = f["rows"][:]
        feasible = [int(np.count_nonzero(rows["feasible"] & (rows["scenario"] == s))) for s in range(n_scenarios)]
        counts = {
            "n_scenarios": n_scenarios,
            "n_baselines": len(space["baselines"]),
            "top_k": top_k,
            "n_values": sum(values_of.values()),
            "values_of": {k: values_of[k] for k in KEYS},
            "n_top": sum(min(top_k, n) for n in feasible),
            "n_pareto": len(f["pareto"]),  # checked against the rows by check_sweep_results.py
            "n_rows": summary["evaluated"],
            "n_near": len(summary["robust"]["within_5pct"]["least_regret"]),
            "oblivious": True,
        }
        check_shapes(f, tables, counts)
        check_types(f, tables)
        check_baselines(f, cfg)
    run_snippets(doc, work)
    for x in failures:
        print("FAILED:", x)
    if not failures:
        print(f"ok: {h5} reads as {doc_path} says")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
