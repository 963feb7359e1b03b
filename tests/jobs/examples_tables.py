#!/usr/bin/env python3
"""Rewrites the "now" columns of docs/examples.md from sweeps of the bundled examples.

The tables' "now" columns move to "before", and "now" is filled from `sax sweep --json` of each example
(exhaustive) and checked against `--search pruned` (same best and baseline times, or the script stops).
Scenario labels and row order stay as the document has them (one row per scenario, in sweep order).

    tests/jobs/examples_tables.py build/release/bin/sax BEFORE_LABEL NOW_LABEL

BEFORE_LABEL / NOW_LABEL name the two columns' versions, e.g. "2026-12-03" "2026-12-04". Not a test.
"""
import json
import re
import subprocess
import sys
import tempfile

EXAMPLES = ["campus-3bldg-llama405b", "hetero-h100-b200", "moe-2bldg-deepseekv3", "regions-2-llama405b"]


def sweep(sax, name, pruned):
    with tempfile.TemporaryDirectory() as d:
        cmd = [sax, "sweep", f"jobs/examples/{name}.json", "-o", f"{d}/o.h5", "--force", "--json"]
        if pruned:
            cmd += ["--search", "pruned"]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def winner(par, net):
    w = [f"TP{par['tp']}", f"PP{par['pp']}", f"DP{par['dp']}"]
    if par["cp"] > 1:
        w.append(f"CP{par['cp']}")
    if par["ep"] > 1:
        w.append(f"EP{par['ep']}")
    if par.get("expert_tensor_parallel", par["tp"]) != par["tp"]:
        w.append(f"ETP{par['expert_tensor_parallel']}")
    if par["vpp"] > 1:
        w.append(f"v{par['vpp']}")
    w += [par["schedule"], f"mb{par['micro_batch']}", f"zero{par['zero']}", "-".join(par["order"]),
          net["transport"], net["algorithm"]]
    if net["compression"] != "none":
        w.append(f"{net['compression']} (lossy)")
    return " ".join(w)


def fmt_time(t):
    return f"{t:.2f}" if t < 100 else f"{t:.1f}"


def row_now(sc):
    best = sc["best"]["iteration_time_s"]
    base = sc["baselines"]["production"]
    simplest = sc["ties"].get("simplest", sc["best"])
    obl = sc["oblivious"]
    ratio = obl["iteration_time_s"] / best if obl.get("iteration_time_s") else None
    obl_txt = "same time" if ratio is None or abs(ratio - 1.0) < 5e-3 else f"{ratio:.2f}× slower"
    a = base["attribution"]
    split = f"{a['placement']:.2f} × {a['scheduling']:.2f} × {a['network']:.2f}"
    return (f"{fmt_time(best)}, {base['speedup']:.2f}×", winner(simplest["parallelism"], simplest["network"]),
            str(sc["ties"]["count"]), obl_txt, split)


def main():
    sax, before_label, now_label = sys.argv[1:4]
    doc = open("docs/examples.md").read()
    for name in EXAMPLES:
        full, pruned = sweep(sax, name, False), sweep(sax, name, True)
        for a, b in zip(full["scenarios"], pruned["scenarios"]):
            if abs(a["best"]["iteration_time_s"] - b["best"]["iteration_time_s"]) > 1e-9 * a["best"]["iteration_time_s"]:
                sys.exit(f"{name}: pruned search best differs in scenario {a['index']}")
        head = doc.index(f"### {name}\n")
        end = doc.find("\n### ", head + 1)
        end = len(doc) if end < 0 else end
        end = min(end, doc.find("\n## ", head + 1) if doc.find("\n## ", head + 1) > 0 else end)
        section = doc[head:end]
        lines = section.split("\n")
        rows = [i for i, l in enumerate(lines) if l.startswith("| ") and not l.startswith("| scenario") and not l.startswith("|---")]
        if len(rows) != len(full["scenarios"]):
            sys.exit(f"{name}: {len(rows)} rows in the document, {len(full['scenarios'])} scenarios")
        for i, sc in zip(rows, full["scenarios"]):
            cells = [c.strip() for c in lines[i].strip("|").split("|")]
            now, win, tied, obl, split = row_now(sc)
            lines[i] = "| " + " | ".join([cells[0], cells[2], now, win, tied, obl, split]) + " |"
        hdr = [i for i, l in enumerate(lines) if l.startswith("| scenario")][0]
        lines[hdr] = (f"| scenario | before ({before_label}): best (s), speedup | now ({now_label}): best (s), speedup | "
                      "now's winner (simplest of the tie) | tied | network-oblivious pick | "
                      "speedup = placement × scheduling × network |")
        r = full["robust"]
        rob = [i for i, l in enumerate(lines) if l.startswith("robust over")]
        old = re.match(r"robust over the (\d+) scenarios: (.*?)(?: \(before: .*)?\.$", lines[rob[0]]) if rob else None
        text = (f"robust over the {len(full['scenarios'])} scenarios: {winner(r['parallelism'], r['network'])}, "
                f"worst regret {100 * r['worst_regret']:.2f} %" + ("" if r.get("exact", True) else " (not proven optimal)"))
        if old:
            text += f" (before: {old.group(2)})"
        text += "."
        if rob:
            lines[rob[0]] = text
        doc = doc[:head] + "\n".join(lines) + doc[end:]
        print(f"{name}: {len(rows)} scenarios", file=sys.stderr)
    open("docs/examples.md", "w").write(doc)


if __name__ == "__main__":
    main()
