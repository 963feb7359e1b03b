#!/usr/bin/env bash
# run.sh - builds the libFuzzer harnesses with clang and runs them (docs/reliability.md, "Fuzzing").
#
#   tests/fuzz/run.sh SECONDS [BUILD_DIR]        build, then run each fuzzer but results SECONDS each
#   tests/fuzz/run.sh --build BUILD_DIR          only build (the fuzz_build CTest test)
#   tests/fuzz/run.sh --run NAME SECONDS BUILD_DIR   run one: config, units, nccl, checkpoint, results,
#                                                    h5edits
#
# BUILD_DIR defaults to build/fuzz. Seeds: tests/fuzz/corpus/<name> (every crash input found so far),
# and for the configuration fuzzer also tests/data/bad, tests/data/configs and jobs/examples; new
# interesting inputs accumulate in BUILD_DIR/corpus-<name>. A crash leaves BUILD_DIR/crash-<name>-*:
# add it to tests/fuzz/corpus/<name>/ (and, for a configuration, to tests/data/bad with a line in
# expected.txt) and fix the bug. Exits 77 (CTest: skipped) when clang or its libFuzzer is missing.
# SAX_JOBS caps the build parallelism (default 2). SAX_FUZZ_SEED fixes libFuzzer's seed (the CTest fuzz
# tests set it, so that CI explores the same inputs on every run and a finding is reproducible); unset,
# every run draws a new one.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cc=${SAX_FUZZ_CC:-clang}

usage() {
    sed -n '4,8p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2
    exit 2
}

have_libfuzzer() {
    local probe
    probe=$(mktemp -d /tmp/sax-fuzz-probe.XXXXXX)
    printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
        > "$probe/p.c"
    "$cc" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" > "$probe/log" 2>&1
    local status=$?
    [[ $status -eq 0 ]] || sed 's/^/  /' "$probe/log" | head -5 >&2
    rm -rf "$probe"
    return $status
}

build() { # BUILD_DIR
    local dir=$1
    if ! command -v "$cc" > /dev/null 2>&1; then
        echo "SKIP: no $cc on PATH (Debian: apt-get install clang); the fuzzers were not built" >&2
        exit 77
    fi
    if ! have_libfuzzer; then
        echo "SKIP: $cc cannot link -fsanitize=fuzzer (libFuzzer missing); the fuzzers were not built" >&2
        exit 77
    fi
    mkdir -p "$dir"
    local flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
    CC=$cc cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSAX_FUZZ=ON -DSAX_WERROR=OFF \
        -DCMAKE_C_FLAGS="$flags" > "$dir/fuzz-configure.log" 2>&1 ||
        { cat "$dir/fuzz-configure.log" >&2; echo "FAIL: configuring $dir" >&2; exit 1; }
    cmake --build "$dir" -j "${SAX_JOBS:-2}" --target fuzz_config fuzz_units fuzz_nccl fuzz_checkpoint fuzz_results fuzz_h5edits \
        > "$dir/fuzz-build.log" 2>&1 ||
        { tail -40 "$dir/fuzz-build.log" >&2; echo "FAIL: building the fuzzers in $dir" >&2; exit 1; }
    echo "built $dir/tests/fuzz/fuzz_{config,units,nccl,checkpoint,results,h5edits}"
}

run() { # NAME SECONDS BUILD_DIR
    local name=$1 seconds=$2 dir=$3
    local bin=$dir/tests/fuzz/fuzz_$name
    if [[ ! -x $bin ]]; then
        if ! command -v "$cc" > /dev/null 2>&1 || ! have_libfuzzer; then
            echo "SKIP: no clang with libFuzzer; fuzz_$name not run" >&2
            exit 77
        fi
        echo "FAIL: $bin is missing (run tests/fuzz/run.sh --build $dir first)" >&2
        exit 1
    fi
    local seeds=("$here/corpus/$name")
    local dict=()
    if [[ $name == config ]]; then
        seeds+=("$root/tests/data/bad" "$root/tests/data/configs" "$root/jobs/examples")
        dict=(-dict="$here/config.dict")
    elif [[ $name == nccl ]]; then
        seeds+=("$root/tests/data/calibration")
    fi
    local max_len=65536
    [[ $name == results ]] && max_len=262144 # a small sweep's results file is 150 KB
    mkdir -p "$dir/corpus-$name"
    echo "fuzz_$name for $seconds s (seeds: ${seeds[*]})"
    # leaks are findings too (libFuzzer's default); a slow input (>10 s) or >2 GB is one as well
    local seed=()
    [[ -n ${SAX_FUZZ_SEED:-} ]] && seed=(-seed="$SAX_FUZZ_SEED")
    "$bin" "${seed[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=$max_len -print_final_stats=1 -error_exitcode=70 -timeout_exitcode=71 \
        -artifact_prefix="$dir/crash-$name-" "${dict[@]}" "$dir/corpus-$name" "${seeds[@]}" 2>&1 |
        grep -vE '^#[0-9]+\s+(NEW|REDUCE|pulse)' | tail -60
    local status=${PIPESTATUS[0]}
    if [[ $status -ne 0 ]]; then
        echo "FAIL: fuzz_$name found a problem (exit $status); the input is in $dir/crash-$name-*;" \
            "add it to tests/fuzz/corpus/$name/ as a regression test and fix the bug" >&2
        ls -l "$dir"/crash-"$name"-* 2> /dev/null >&2
        exit 1
    fi
    echo "fuzz_$name: no crash in $seconds s"
}

case ${1:-} in
--build)
    [[ $# -eq 2 ]] || usage
    build "$2"
    ;;
--run)
    [[ $# -eq 4 ]] || usage
    run "$2" "$3" "$4"
    ;;
[0-9]*)
    dir=${2:-$root/build/fuzz}
    build "$dir"
    for name in config units nccl checkpoint h5edits; do # results only on request: see docs/reliability.md
        run "$name" "$1" "$dir"
    done
    ;;
*)
    usage
    ;;
esac
