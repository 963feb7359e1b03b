"""Runs `sax pareto` and `sax report` on a results file and on bad input, and checks exit
statuses and messages (contract: 0 success, 2 bad usage or bad input).

usage: check_cli.py SAX RESULTS.h5 WORKDIR
"""
import os
import subprocess
import sys

failures = []


def run(args):
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def expect(args, code, *fragments):
    rc, out, err = run(args)
    if rc != code:
        failures.append(f"{' '.join(args)}: exit {rc}, expected {code}\n{err}")
    for f in fragments:
        if f not in out + err:
            failures.append(f"{' '.join(args)}: output lacks {f!r}\n{out[:400]}{err[:400]}")


def main(sax, results, work):
    os.makedirs(work, exist_ok=True)
    text = os.path.join(work, "not-hdf5.h5")
    with open(text, "w") as f:
        f.write("hello\n")
    expect([sax, "pareto", results], 0, "Pareto fronts of", "Scenario 1")
    expect([sax, "pareto", results, "--objectives", "iteration_time_s,mfu", "--scenario", "1",
            "--csv", os.path.join(work, "f.csv"), "--svg", os.path.join(work, "f.svg")], 0, "wrote")
    expect([sax, "pareto", results, "--objectives", "speed"], 2, "unknown objective 'speed'",
           "iteration_time_s (min)", "mfu (max)")
    expect([sax, "pareto", results, "--scenario", "9"], 2, "has 2 scenarios")
    expect([sax, "pareto", text], 2, "not an HDF5 file")
    expect([sax, "pareto"], 2, "no results file given")
    expect([sax, "pareto", "--help"], 0, "--objectives")
    svg_dir = os.path.join(work, "plots")
    expect([sax, "report", results, "--svg-dir", svg_dir], 0, "production", "speedup", "pareto-s0.svg")
    for name in ("pareto-s0.svg", "pareto-s1.svg", "breakdown-s0.svg", "scenario-var0.svg"):
        if not os.path.exists(os.path.join(svg_dir, name)):
            failures.append(f"report did not write {name}")
    expect([sax, "report", text], 2, "not an HDF5 file")
    expect([sax, "report", results, "--bogus"], 2, "unknown option")
    expect([sax, "report", "--help"], 0, "--svg-dir")
    for f in failures:
        print("FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
