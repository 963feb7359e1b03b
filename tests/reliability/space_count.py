#!/usr/bin/python3
"""space_count.py SAX CONTRACT-SWEEP.json WORKDIR - `sax space --sample 0` on a valid space of
1.9 x 10^18 candidates (2^60.7: 4096 scenarios, every key with up to 32 values) must finish within
60 s (it ran for more than 300 s before the count became arithmetic; a 2^54 space of the same kind
took 59 s). Checks against facts the count does not use:
  - the valid and skipped candidates add up to the total;
  - scenarios that differ only in site-link bandwidth, latency and loss (which no check reads) have
    equal counts: the count equals 4096 times the count of one of them;
  - keys that no check reads (recompute, sequence_parallel, zero and every key after layer_split)
    multiply the count: it equals the count of the space with those keys at one value, times the
    product of their numbers of values.
Exit 0 when all hold."""
import copy
import json
import subprocess
import sys
import time

sax, base_path, work = sys.argv[1:4]
base = json.load(open(base_path))
sp = base["space"]
sp.update({
    "tp": [1, 2, 3, 4, 6, 8], "cp": [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048],
    "pp": [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 96], "dp": ["auto"], "micro_batch": [1, 2, 3, 4, 6, 8, 12, 16],
    "schedule": ["1f1b", "interleaved", "zb-h1"], "vpp": [1, 2, 4], "recompute": ["none", "selective", "full"],
    "zero": [0, 1, 2, 3], "sequence_parallel": [False, True], "layer_split": ["uniform", "balanced"],
    "connections": list(range(1, 33)), "channels": list(range(1, 33)), "p2p_channels": list(range(1, 33)),
    "buffer_size": [2**i for i in range(16, 30)], "p2p_chunk_size": [2**i for i in range(13, 27)],
})
sp["scenarios"] = {"site_links[0].bandwidth": ["%d Tbit/s" % i for i in range(1, 33)],
                   "site_links[0].latency": ["%d ms" % i for i in range(1, 33)],
                   "site_links[0].loss": [0, 1e-6, 1e-5, 1e-4]}
sp["baselines"] = {}
failures = 0


def check(name, ok):
    global failures
    print(("ok: " if ok else "FAIL: ") + name)
    failures += 0 if ok else 1


def space(cfg, name):
    path = f"{work}/{name}.json"
    json.dump(cfg, open(path, "w"))
    start = time.monotonic()
    try:
        p = subprocess.run([sax, "space", path, "--sample", "0", "--json"], capture_output=True, text=True,
                           timeout=60)
    except subprocess.TimeoutExpired:
        check(f"{name}: sax space finishes within 60 s", False)
        return None
    took = time.monotonic() - start
    check(f"{name}: sax space exits 0 within 60 s ({took:.1f} s, status {p.returncode})", p.returncode == 0)
    if p.returncode != 0:
        print(p.stderr)
        return None
    return json.loads(p.stdout)


big = space(base, "huge")
one = copy.deepcopy(base)
one["space"]["scenarios"] = {"site_links[0].bandwidth": ["1 Tbit/s"]}
single = space(one, "one-scenario")
unchecked = ["recompute", "zero", "sequence_parallel", "order", "algorithm", "compression", "channels",
             "buffer_size", "p2p_chunk_size", "p2p_channels", "transport", "connections"]
factor = 1
small = copy.deepcopy(one)
for k in unchecked:
    factor *= len(small["space"][k])
    small["space"][k] = small["space"][k][:1]
reduced = space(small, "unchecked-keys-at-one-value")
if big and single and reduced:
    check(f"huge: {big['candidates']} candidates (> 2^60)", big["candidates"] > 2**60)
    check("huge: valid + skipped = candidates", big["valid"] + sum(big["skipped"].values()) == big["candidates"])
    check("huge: 4096 x the count of one scenario", big["valid"] == 4096 * single["valid"] and
          all(big["skipped"][r] == 4096 * single["skipped"][r] for r in big["skipped"]))
    check("one scenario: the unchecked keys multiply the count",
          single["valid"] == factor * reduced["valid"] and
          all(single["skipped"][r] == factor * reduced["skipped"][r] for r in single["skipped"]))
    check("some candidates pass and some are skipped", 0 < big["valid"] < big["candidates"])
print(f"space_count: {failures} failed")
sys.exit(1 if failures else 0)
