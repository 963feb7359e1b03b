#!/usr/bin/env python3
"""make_bad_corpus.py - writes the hostile configurations of tests/data/bad/ that issue 8 added
(the first 35 files were written by hand with the configuration loader). Each is one defect applied to
tests/data/configs/contract-sweep.json, a valid sweep configuration, or raw bytes. Rerun after
changing the base only if the defects still apply; the checked-in files are what the tests read:

    /usr/bin/python3 tests/reliability/make_bad_corpus.py tests/data/bad

Where each file's error must be reported (the text that follows the file name in the message) is
listed in tests/data/bad/expected.txt, written by hand from the defect, not from sax's output.
"""
import copy
import itertools
import json
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
base = json.load(open(os.path.join(root, "tests/data/configs/contract-sweep.json")))
out = sys.argv[1]
text = json.dumps(base, indent=1) + "\n"


def raw(name, data):
    with open(os.path.join(out, name + ".json"), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def mut(name, change):
    d = copy.deepcopy(base)
    change(d)
    raw(name, json.dumps(d, indent=1) + "\n")


def setter(*path_and_value):
    *path, key, value = path_and_value

    def change(d):
        for p in path:
            d = d[p]
        d[key] = value

    return change


# ---- broken JSON ----
raw("empty-file", b"")
raw("whitespace-only", b"  \n\t\n")
raw("binary-garbage", bytes(range(256)) * 4)
raw("truncated", text[: len(text) // 2])
raw("trailing-garbage", text + '{"more": 1}\n')
raw("nul-byte", text.replace('"gpt3-175b"', '"gpt3\x00-175b"', 1))
# cJSON refuses nesting deeper than 1000; 100000 brackets would overflow a recursive parser's stack
raw("deep-nesting", text.replace('"gpt3-175b"', "[" * 100000 + "]" * 100000, 1))
raw("deep-nesting-objects", text.replace('"gpt3-175b"', '{"a": ' * 900 + "1" + "}" * 900, 1))
raw("top-level-null", "null\n")
raw("empty-object", "{}\n")

# ---- wrong types ----
mut("bool-for-integer", setter("model", "layers", True))
mut("null-value", setter("model", "hidden", None))
mut("list-for-section", setter("training", []))
mut("space-not-list", setter("space", "tp", 8))
mut("baseline-not-object", setter("space", "baselines", "production", 1))
mut("baseline-wrong-type", setter("space", "baselines", "production", "connections", "many"))

# ---- unknown keys: names too long for any fixed buffer ----
mut("long-unknown-key", setter("model", "x" * 100000, 1))
mut("long-site-name", lambda d: (setter("cluster", "sites", 0, "name", "A" * 100000)(d),
                                 setter("cluster", "site_links", 0, "between", ["A" * 100000, "B"])(d)))
mut("long-unit-string", setter("cluster", "scale_up", "latency", "1 " + "u" * 100000 + "s"))

# ---- negative, zero, NaN, infinite and huge quantities ----
mut("negative-gpus", setter("cluster", "sites", 0, "gpus", -1024))
mut("negative-loss", setter("cluster", "site_links", 0, "loss", -1e-6))
mut("zero-heads", setter("model", "heads", 0))
mut("vocab-zero", setter("model", "vocab", 0))
mut("global-batch-zero", setter("training", "global_batch", 0))
mut("scale-up-zero", setter("cluster", "scale_up", "size", 0))
mut("oversubscription-zero", setter("cluster", "tiers", 1, "oversubscription", 0))
mut("zero-connections", setter("network", "connections", 0))
mut("nan-unit-string", setter("cluster", "scale_up", "bandwidth", "nan GB/s"))
mut("infinite-unit-string", setter("cluster", "scale_up", "latency", "inf us"))
raw("number-overflows-double", text.replace('"312 TFLOP/s"', "1e400", 1))
mut("huge-quantity", setter("cluster", "gpu", "hbm_bandwidth", "1e308 TB/s"))
mut("integer-overflow", setter("model", "layers", 4294967297))
mut("integer-huge", setter("model", "layers", 1e300))
mut("seq-len-huge", setter("model", "seq_len", 2**31))
mut("tier-huge-gpus", setter("cluster", "tiers", 1, "gpus", 2**62))

# ---- units ----
mut("unit-without-number", setter("cluster", "scale_up", "latency", "ms"))
mut("empty-quantity-string", setter("cluster", "scale_up", "latency", ""))
mut("number-string-without-unit", setter("cluster", "gpu", "hbm", "80"))

# ---- sites and links ----
mut("no-sites", setter("cluster", "sites", []))
mut("no-tiers", setter("cluster", "tiers", []))
mut("link-to-itself", setter("cluster", "site_links", 0, "between", ["A", "A"]))
mut("link-three-sites", setter("cluster", "site_links", 0, "between", ["A", "B", "A"]))
mut("order-repeated-dim", setter("parallelism", "order", ["tp", "tp", "pp", "dp"]))
mut("order-unknown-dim", setter("parallelism", "order", ["tp", "cp", "pp", "xp"]))

# ---- the space ----
mut("space-empty-list", setter("space", "tp", []))
mut("space-zero-tp", setter("space", "tp", [0, 1]))
mut("space-list-too-long", setter("space", "tp", list(range(1, 2001))))


def overflow(d):
    """32^8 x 32 orders x 8640 = 1.5e17 candidates per scenario x 4096 scenarios > 2^64."""
    sp = d["space"]
    for k in ("tp", "pp", "dp", "cp", "ep", "vpp", "micro_batch", "connections"):
        sp[k] = list(range(1, 33))
    sp.update(schedule=["gpipe", "1f1b", "interleaved", "zb-h1", "dualpipe"],
              recompute=["none", "selective", "full"], zero=[0, 1, 2, 3],
              transport=["roce", "roce-gbn", "roce-sr", "tcp"], algorithm=["ring", "tree", "hierarchical"],
              compression=["none", "bf16", "fp8"], sequence_parallel=[False, True])
    sp["order"] = [list(p) for p in itertools.islice(itertools.permutations(["tp", "cp", "ep", "pp", "dp"]), 32)]
    sp["scenarios"] = {"site_links[0].bandwidth": ["%d Tbit/s" % i for i in range(1, 33)],
                       "site_links[0].latency": ["%d ms" % i for i in range(1, 33)],
                       "site_links[0].loss": [0, 1e-7, 2e-7, 3e-7]}
    del sp["baselines"]


mut("space-size-overflows-64-bits", overflow)

# ---- scenarios ----
mut("scenario-path-nothing", setter("space", "scenarios", "site_links[0].colour", [1, 2]))
mut("scenario-path-object", setter("space", "scenarios", "tiers[0]", [1, 2]))
mut("scenario-empty-list", setter("space", "scenarios", "site_links[0].bandwidth", []))
mut("scenario-negative-bandwidth", setter("space", "scenarios", "site_links[0].bandwidth", ["1 Tbit/s", "-1 Tbit/s"]))
mut("scenario-too-many-values", setter("space", "scenarios", {
    "site_links[0].bandwidth": ["%d Tbit/s" % i for i in range(1, 101)],
    "site_links[0].latency": ["%d ms" % i for i in range(1, 101)]}))

# ---- baselines that contradict the space ----
mut("baseline-tp-outside-space", setter("space", "baselines", "production", "tp", 16))
mut("baseline-fixed-key-differs", setter("space", "baselines", "production", "sequence_parallel", True))

# ---- added for the reliability issue's second round (docs/reliability.md, "Bad input") ----
# Duplicate keys in any object, found when the text is read: cJSON keeps both members and every
# lookup returns the first, so the second would be silently ignored.
prod = '"production": {\n    "order": ['
assert prod in text
raw("duplicate-baseline-name", text.replace(prod, '"production": {"schedule": "1f1b"},\n   ' + prod, 1))


def huge_sites(d):
    """Two sites of 2^30 GPUs: 2^31 in all, one more than a 32-bit count holds (dp "auto" uses them all)."""
    d["parallelism"]["dp"] = "auto"
    d["cluster"]["tiers"][0]["gpus"] = 4096
    d["cluster"]["tiers"][1]["gpus"] = 2**30
    for s in d["cluster"]["sites"]:
        s["gpus"] = 2**30


mut("gpus-total-overflow", huge_sites)
# Denormal and absurdly small quantities: above 0, yet any time divided by them is infinite.
mut("denormal-bandwidth", setter("cluster", "site_links", 0, "bandwidth", 5e-324))
mut("denormal-peak-flops", setter("cluster", "gpu", "peak_flops", 5e-324))
mut("denormal-window", setter("cluster", "site_links", 0, "window", 5e-324))
mut("denormal-efficiency", setter("cluster", "tiers", 0, "efficiency", 1e-320))
mut("tiny-bandwidth-string", setter("cluster", "scale_up", "bandwidth", "1e-300 Gbit/s"))
# Names with control characters: a BEL or an escape sequence in a table would act on the terminal.
mut("control-char-site-name", lambda d: (setter("cluster", "sites", 0, "name", "A\a")(d),
                                         setter("cluster", "site_links", 0, "between", ["A\a", "B"])(d)))
mut("control-char-baseline-name", lambda d: d["space"]["baselines"].update({"prod\aB": {"schedule": "1f1b"}}))
# Text cJSON reads leniently (issue 14, item 15): a number with a leading zero or a bare '.', an
# integer a double cannot hold exactly (9007199254740993 = 2^53 + 1 would be read as 2^53), a string
# with an escaped NUL (a C string ends there: "1 ms\u0000garbage" would be "1 ms"), and a scenario
# path whose index overflows a long (reported as 9223372036854775807 before).
layers = '"layers": 96'
assert layers in text
raw("number-leading-zero", text.replace(layers, '"layers": 0096', 1))
raw("number-trailing-dot", text.replace(layers, '"layers": 96.', 1))
raw("integer-beyond-2-53", text.replace(layers, '"layers": 9007199254740993', 1))
latency = '"latency": "3 us"'
assert latency in text
raw("nul-escape-in-string", text.replace(latency, '"latency": "3 us\\u0000garbage"', 1))
mut("scenario-index-overflows", lambda d: d["space"]["scenarios"].update(
    {"site_links[99999999999999999999].bandwidth": ["1 Tbit/s"]}))
