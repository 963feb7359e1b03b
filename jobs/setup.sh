#!/usr/bin/env bash
# jobs/setup.sh - the two commands of the README, from a fresh clone on Debian 12 / Ubuntu:
#
#   jobs/setup.sh example   install what is missing, build the release preset, run the bundled example
#   jobs/setup.sh test      install what is missing, build the dev and asan presets, run the test suite
#
# Missing Debian packages are installed with apt-get when run as root; otherwise the script prints
# the exact apt-get line to run and exits 1. Builds go to build/<preset> (CMakePresets.json) and
# the executable is build/<preset>/bin/sax.
# Installed (`cmake --install`: <prefix>/share/sax/jobs/setup.sh) there is nothing to build:
# `example` runs the sax on PATH (e.g. from a site module) on the examples installed in
# <prefix>/share/sax/examples, writing to ./out; `test` needs the source tree.
# Environment: SAX_EXAMPLE=jobs/examples/<name>.json picks another example; SAX_BIN=/path/to/sax
# runs the example with that sax instead of building one; SAX_JOBS=N caps the build and test
# parallelism (default: nproc).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ -f $here/../CMakePresets.json ]]; then
    source_tree=1 # jobs/setup.sh of a clone: builds there, runs from its root
    cd "$here/.."
    examples=jobs/examples
else
    source_tree=0 # <prefix>/share/sax/jobs/setup.sh: runs in the current directory
    examples=$(cd "$here/../examples" 2> /dev/null && pwd) || examples=$here/../examples
fi

# Everything sax, its tests and its job scripts use: compilers and CMake; MPI, parallel HDF5,
# PETSc, cJSON, cmocka; h5py/numpy/pandas for the tests that read results (and run the snippets
# of docs/results-format.md); clang-format for the style check; Slurm + munge for the batch-job
# tests, valgrind and clang for the memory and fuzz tests.
packages=(
    build-essential cmake pkg-config
    libopenmpi-dev openmpi-bin libhdf5-openmpi-dev hdf5-tools
    libcjson-dev libcmocka-dev libpetsc-real-dev
    python3-h5py python3-numpy python3-pandas
    clang-format slurm-wlm munge valgrind clang
)
# The presets `test` builds and runs, in order; adding one is one word here.
test_presets=(dev asan)
example_preset=release
default_example=$examples/campus-3bldg-llama405b.json

jobs=${SAX_JOBS:-$(nproc)}

say() { printf 'setup: %s\n' "$*"; }
die() { # MESSAGE [EXIT_STATUS]
    printf 'setup: %s\n' "$1" >&2
    exit "${2:-1}"
}

usage() {
    if [[ $source_tree -eq 1 ]]; then
        cat <<EOF
usage: jobs/setup.sh example | test

  example  install missing Debian packages, build the '$example_preset' preset, run sax on
           \${SAX_EXAMPLE:-$default_example} with mpirun over all $(nproc) local cores
  test     install missing Debian packages, build the ${test_presets[*]} presets and run ctest on each
EOF
    else
        cat <<EOF
usage: $here/setup.sh example

  example  run the sax on PATH (or \$SAX_BIN) on \${SAX_EXAMPLE:-$default_example}
           with mpirun over all $(nproc) local cores, writing ./out
EOF
    fi
}

# Prints the packages of "packages" that dpkg does not list as installed, one a line.
missing_packages() {
    local p
    for p in "${packages[@]}"; do
        if [[ $(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null) != ii* ]]; then
            echo "$p"
        fi
    done
}

install_packages() {
    if ! command -v dpkg-query >/dev/null 2>&1; then
        say "no dpkg-query: not a Debian system; install the equivalents of these yourself:"
        say "  ${packages[*]}"
        return 0
    fi
    local missing
    mapfile -t missing < <(missing_packages)
    if [[ ${#missing[@]} -eq 0 ]]; then
        say "all ${#packages[@]} Debian packages are installed"
        return 0
    fi
    local install=(apt-get install -y --no-install-recommends "${missing[@]}")
    if [[ $(id -u) -ne 0 ]]; then
        printf 'setup: missing Debian packages: %s\n' "${missing[*]}" >&2
        printf 'setup: install them as root, then run this again:\n' >&2
        printf '  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive %s\n' "${install[*]}" >&2
        exit 1
    fi
    say "installing ${missing[*]}"
    apt-get update
    DEBIAN_FRONTEND=noninteractive "${install[@]}"
}

check_cmake() {
    local v
    v=$(cmake --version | sed -n 's/^cmake version \([0-9]*\.[0-9]*\).*/\1/p')
    if [[ $(printf '%s\n3.25\n' "$v" | sort -V | head -n 1) != 3.25 ]]; then
        die "CMakePresets.json needs CMake >= 3.25; found ${v:-none}"
    fi
}

build() { # PRESET [TARGET...]
    local preset=$1
    shift
    local targets=()
    [[ $# -eq 0 ]] || targets=(--target "$@")
    say "configuring and building preset '$preset' in build/$preset${*:+ (targets: $*)}"
    cmake --preset "$preset"
    cmake --build --preset "$preset" -j "$jobs" "${targets[@]}"
}

run_tests() {
    local preset=$1
    say "running the tests of preset '$preset'"
    ctest --preset "$preset" -j "$jobs" --output-on-failure
}

# True when `sax CMD --help` does not mark CMD "(not implemented yet)", as `sax --help` does.
implemented() {
    local help
    help=$("$1" "$2" --help) || return 1
    ! grep -qF "(not implemented yet)" <<<"$help"
}

# mpirun with the settings a local run needs, set for this one command only: Open MPI refuses to
# run as root without two variables, and nproc counts hardware threads, which can exceed the
# cores Open MPI counts as slots.
local_mpirun() {
    local env_vars=(OMPI_MCA_rmaps_base_oversubscribe=1)
    if [[ $(id -u) -eq 0 ]]; then
        env_vars+=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
    fi
    say "running: mpirun -n $(nproc) $*"
    env "${env_vars[@]}" mpirun -n "$(nproc)" "$@"
}

run_example() { # SAX
    local sax=$1
    local example=${SAX_EXAMPLE:-$default_example}
    local name
    name=$(basename "$example" .json)
    [[ -f $example ]] || die "no example configuration $example (set SAX_EXAMPLE=$examples/<name>.json)" 2
    "$sax" --version
    if implemented "$sax" sweep; then
        mkdir -p out
        rm -f "out/$name.h5" "out/$name.h5.ckpt" # a fresh run each time; `sax sweep --resume` is for interrupted sweeps
        local_mpirun "$sax" sweep "$example" -o "out/$name.h5"
        say "results: out/$name.h5 (next: $sax report out/$name.h5)"
    elif implemented "$sax" eval; then
        say "'sax sweep' is not implemented yet; evaluating the configuration of $example with 'sax eval'"
        "$sax" eval "$example"
    else
        die "neither 'sax sweep' nor 'sax eval' is implemented yet; nothing to run on $example" 2
    fi
}

mode=${1:-}
case $mode in
example)
    if [[ -n ${SAX_BIN:-} ]]; then
        sax=$SAX_BIN
    elif [[ $source_tree -eq 1 ]]; then
        install_packages
        check_cmake
        build "$example_preset" sax
        sax=build/$example_preset/bin/sax
    else
        sax=$(command -v sax) ||
            die "no sax on PATH: load the module that provides it, or set SAX_BIN=/path/to/sax" 2
    fi
    run_example "$sax"
    ;;
test)
    [[ $source_tree -eq 1 ]] || die "'test' needs the source tree (the tests are not installed): run jobs/setup.sh test in a clone" 2
    install_packages
    check_cmake
    failed=()
    for preset in "${test_presets[@]}"; do
        build "$preset"
        run_tests "$preset" || failed+=("$preset")
    done
    [[ ${#failed[@]} -eq 0 ]] || die "tests failed in preset(s): ${failed[*]}"
    say "all tests passed (presets: ${test_presets[*]})"
    ;;
-h | --help)
    usage
    ;;
*)
    usage >&2
    exit 2
    ;;
esac
