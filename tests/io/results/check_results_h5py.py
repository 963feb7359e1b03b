"""Opens a sax results file with h5py (Debian's python3-h5py) and checks what
docs/results-format.md promises: root attributes, datasets, their description/units
attributes, enum names, the row fields listed in the document, and values of the
test fixture (tests/io/results/test_results_fixture.c) that wrote the file.

usage: check_results_h5py.py RESULTS.h5 docs/results-format.md
Exit 0 = all checks hold, 1 = a check failed, 77 = h5py not installed (CTest skip).
"""
import json
import re
import sys

try:
    import h5py
    import numpy as np
except ImportError as exc:  # pragma: no cover
    print(f"skipping: {exc}")
    sys.exit(77)

KEYS = ["tp", "pp", "dp", "cp", "ep", "vpp", "micro_batch", "schedule", "recompute",
        "sequence_parallel", "zero", "order", "layer_split",
        "decoder_first_pipeline_num_layers", "decoder_last_pipeline_num_layers", "transport", "connections",
        "channels", "buffer_size", "p2p_chunk_size", "p2p_channels", "algorithm", "compression"]
ROOT_ATTRS = ["sax_format", "sax_format_version", "sax_version", "git_revision", "config_json",
              "command_line", "ranks", "hosts", "start_time", "end_time", "start_unix_s",
              "end_unix_s", "elapsed_s", "evaluated", "skipped", "feasible", "infeasible", "store",
              "n_scenarios", "scenario_variables", "top_k", "pareto_objectives"]
DATASETS = ["scenarios", "best", "top", "pareto", "best_per_value", "baseline_best", "infeasible",
            "rows", "space/baselines"] + ["space/" + k for k in KEYS]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def documented_row_fields(doc_path):
    """The first column of the table under the '## Row fields' heading."""
    fields, in_section = [], False
    for line in open(doc_path, encoding="utf-8"):
        if line.startswith("## "):
            in_section = line.strip().lower().startswith("## row fields")
            continue
        m = re.match(r"^\|\s*`([a-z_0-9]+)`\s*\|", line)
        if in_section and m:
            fields.append(m.group(1))
    return fields


def main(path, doc_path):
    f = h5py.File(path, "r")
    for a in ROOT_ATTRS:
        check(a in f.attrs, f"root attribute {a} missing")
    check(text(f.attrs["sax_format"]) == "sax-results", "sax_format")
    check(int(f.attrs["sax_format_version"]) == 1, "sax_format_version")
    check(json.loads(text(f.attrs["config_json"]))["model"]["name"] == "fixture", "config_json is JSON")
    check(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", text(f.attrs["start_time"])) is not None, "start_time ISO")
    check(text(f.attrs["store"]) == "all", "store")
    check([text(s) for s in f.attrs["scenario_variables"]] == ["site_links[0].bandwidth"], "scenario_variables")

    for d in DATASETS:
        check(d in f, f"dataset /{d} missing")
        if d not in f:
            continue
        ds = f[d]
        check("description" in ds.attrs and len(text(ds.attrs["description"])) > 10, f"/{d} description")
        if ds.dtype.names:
            for a in ("field_units", "field_descriptions"):
                check(a in ds.attrs and len(ds.attrs[a]) == len(ds.dtype.names), f"/{d} {a} per field")
        else:
            check("units" in ds.attrs, f"/{d} units")

    rows = f["rows"]
    documented = documented_row_fields(doc_path)
    check(len(documented) > 30, "docs list the row fields")
    check(list(rows.dtype.names) == documented,
          f"row fields differ from docs: file {rows.dtype.names} vs docs {documented}")
    check(rows.compression == "gzip" and rows.shuffle and rows.chunks is not None, "rows chunked + compressed")

    # enum names, as h5py shows them
    def enum_of(ds, field):
        return h5py.check_enum_dtype(ds.dtype.fields[field][0])
    check(enum_of(rows, "schedule") == {"gpipe": 0, "1f1b": 1, "interleaved": 2, "zb-h1": 3, "dualpipe": 4},
          "schedule enum")
    check(enum_of(rows, "recompute") == {"none": 0, "selective": 1, "full": 2}, "recompute enum")
    check(set(enum_of(rows, "transport")) == {"roce", "roce-gbn", "roce-sr", "tcp"}, "transport enum")
    check(set(enum_of(rows, "algorithm")) == {"ring", "tree", "hierarchical"}, "algorithm enum")
    check(set(enum_of(rows, "compression")) == {"none", "bf16", "fp8"}, "compression enum")
    check(set(enum_of(rows, "layer_split")) == {"uniform", "balanced", "embedding-loss"}, "layer_split enum")
    check(enum_of(rows, "order") == {"other": -1, "tp-cp-pp-dp": 0, "tp-cp-dp-pp": 1}, "order enum")
    check("memory" in enum_of(rows, "reason") and enum_of(rows, "reason")["none"] == 0, "reason enum")
    check(rows.dtype.fields["feasible"][0] == np.dtype(bool), "feasible reads as numpy bool")
    check(h5py.check_enum_dtype(f["space/schedule"].dtype) is not None, "/space/schedule is an enum")
    check(set(h5py.check_enum_dtype(f["best_per_value"].dtype.fields["bpv_key"][0])) == set(KEYS), "bpv_key enum")
    check(set(h5py.check_enum_dtype(f["baseline_best"].dtype.fields["baseline"][0])) == {"production", "tp1"},
          "baseline enum")

    # the fixture's values (formulas in tests/io/results/test_results_fixture.h)
    r = rows[:]
    check(len(r) == 1200, "1200 rows")
    order = np.lexsort((r["index"], r["scenario"]))
    check((order == np.arange(len(r))).all(), "rows sorted by scenario then index")
    row = r[600 + 5]
    check(row["tp"] == 4 and row["pp"] == 2 and abs(row["iteration_time_s"] - 10.4) < 1e-12, "row 605 values")
    check(int(f["best"][0]["index"]) == 0, "best of scenario 0")
    counts = {int(x["reason"]): int(x["count"]) for x in f["infeasible"][:]}
    mem = h5py.check_enum_dtype(f["infeasible"].dtype.fields["reason"][0])["memory"]
    check(counts[mem] == 120 and counts[0] == 1080, "infeasible counts")
    sc = f["scenarios"][:]
    check(list(sc.dtype.names) == ["scenario", "site_links[0].bandwidth"] and sc[1][1] == 5e12, "scenarios table")
    check(list(f["scenarios"].attrs["field_units"]) in (["1", "B/s"], [b"1", b"B/s"]), "scenario units")
    bl = f["space/baselines"][:]
    check(text(bl[0]["name"]) == "production" and bl[1]["tp"] == 1 and bl[0]["tp"] == -1, "baselines table")
    units = dict(zip(rows.dtype.names, (text(u) for u in rows.attrs["field_units"])))
    check(units["iteration_time_s"] == "s" and units["cross_site_bytes_per_iteration"] == "B"
          and units["tokens_per_s"] == "1/s", "row units")

    if failures:
        for x in failures:
            print("FAILED:", x)
        return 1
    print(f"ok: {path}: {len(DATASETS)} datasets, {len(rows.dtype.names)} row fields checked")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
