#!/usr/bin/env python3
"""Write a validation set with only the configuration keys of the public contract.

A measured run written by someone else carries the contract's keys (../shared/design/contract.md,
"Configuration file"): the model, the batch and precision, the cluster, the parallelism and the
network. The rows of this folder also state what their sources say about the software (attention
kernels, dropout, TP overlap, FSDP flavour, MoE dispatchers, ...). This script drops every such key
from the training, parallelism and network sections and from GPU objects (the model's own keys stay:
they describe the model, not how it was run, but a value the contract does not list becomes the
contract's), so that `sax validate` on its output shows what sax's
defaults give a run described by the contract's keys alone.

Usage: contract_keys_only.py IN.json OUT.json   (prints each dropped key and how many rows had it)
"""
import json
import sys

KEEP = {
    "training": {"global_batch", "precision", "grad_reduce_dtype"},
    "parallelism": {"tp", "pp", "dp", "cp", "ep", "vpp", "micro_batch", "schedule", "recompute",
                    "sequence_parallel", "zero", "order"},
    "network": {"transport", "connections", "algorithm", "compression", "channels",
                "qps_per_connection", "buffer_size", "p2p_chunk_size"},
}
GPU_KEEP = {"preset", "name", "peak_flops", "hbm", "hbm_bandwidth"}
# values sax reads beyond the contract's, as the contract writes the same job: the FFNs of two matrices
# are its gelu, the gated ones its swiglu, fp16 runs its GEMMs at bf16's peak and its 2-byte gradients
# are the contract's bf16 ones
CONTRACT_VALUE = {
    ("model", "ffn_act"): {"relu": "gelu", "squared_relu": "gelu", "geglu": "swiglu"},
    ("training", "precision"): {"fp16": "bf16"},
    ("training", "grad_reduce_dtype"): {"fp16": "bf16"},
}


def strip_gpu(gpu, dropped, name):
    if not isinstance(gpu, dict):
        return
    for key in [k for k in gpu if k not in GPU_KEEP]:
        dropped.setdefault("gpu." + key, set()).add(name)
        del gpu[key]


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1]) as f:
        data = json.load(f)
    dropped = {}
    for case in data["cases"]:
        config = case["config"]
        for section, keep in KEEP.items():
            body = config.get(section)
            if not isinstance(body, dict):
                continue
            for key in [k for k in body if k not in keep]:
                dropped.setdefault(section + "." + key, set()).add(case["name"])
                del body[key]
        for (section, key), to in CONTRACT_VALUE.items():
            body = config.get(section)
            if isinstance(body, dict) and body.get(key) in to:
                dropped.setdefault(f"{section}.{key} {body[key]}", set()).add(case["name"])
                body[key] = to[body[key]]
        cluster = config["cluster"]
        strip_gpu(cluster.get("gpu"), dropped, case["name"])
        for site in cluster.get("sites", []):
            strip_gpu(site.get("gpu"), dropped, case["name"])
    with open(argv[2], "w") as f:
        json.dump(data, f, indent=1)
    for key in sorted(dropped):
        print(f"{key:45s} {len(dropped[key])} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
