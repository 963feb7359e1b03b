#!/usr/bin/env bash
# check_format.sh SOURCE_DIR - every .c/.h file of the project must be clean under the checked-in
# .clang-format. Exits 77 (reported by CTest as skipped) when clang-format is not installed.
set -uo pipefail
src=$1
cf=""
for c in clang-format clang-format-14; do
    if command -v "$c" >/dev/null 2>&1; then
        cf=$c
        break
    fi
done
if [[ -z $cf ]]; then
    echo "SKIPPED: clang-format is not installed (jobs/setup.sh installs it: apt-get install clang-format)"
    exit 77
fi
"$cf" --version
cd "$src" || exit 1
mapfile -t files < <(find model search comm io tests -type f \( -name '*.c' -o -name '*.h' \) | sort)
echo "checking ${#files[@]} files"
bad=()
for f in "${files[@]}"; do
    if ! "$cf" --dry-run --Werror "$f" >/dev/null 2>&1; then
        bad+=("$f")
    fi
done
if [[ ${#bad[@]} -gt 0 ]]; then
    for f in "${bad[@]}"; do
        echo "not formatted: $f ($("$cf" --dry-run "$f" 2>&1 | grep -c 'warning:') places)"
    done
    "$cf" --dry-run --Werror "${bad[0]}" 2>&1 | head -n 20
    echo "FAIL: fix with: (cd $src && $cf -i ${bad[*]})"
    exit 1
fi
echo "all ${#files[@]} files formatted"
