#!/usr/bin/env bash
# check_help_paths.sh SAX SOURCE_DIR - every file or folder that `sax --help` and `sax CMD --help`
# point to exists in a clone of the project: each path with a folder part and a file extension
# (docs/sweep.md, jobs/examples/x.json, ../shared/...), each folder path under docs/, jobs/ or
# tests/, and each bare *.md name (README.md at the top, or in docs/). With git, "exists" means
# tracked by git, so a file that is only in the developer's tree does not count. Placeholders in
# capitals (CONFIG.json) and the names of files a command writes (no folder part) are not paths.
set -uo pipefail
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
sax=$1
src=$2

in_clone() { # path relative to the source root
    if git -C "$src" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
        [[ -n $(git -C "$src" ls-files -- "$1" 2> /dev/null | head -n 1) ]]
    else
        [[ -e $src/$1 ]]
    fi
}

commands=$("$sax" --help | sed -n 's/^  \([a-z]\+\) [ A-Z].*/\1/p')
[[ -n $commands ]] || fail "sax --help lists commands"
seen=0
for cmd in "" $commands; do
    text=$("$sax" $cmd --help 2>&1)
    # candidate paths: runs of path characters; URLs are not paths
    for tok in $(grep -oE '[A-Za-z0-9_.<>*-]*(/[A-Za-z0-9_.<>*-]*)+|[A-Za-z0-9_-]+\.md' <<< "$text" |
                 grep -v '://' | sort -u); do
        tok=${tok%.} # a path ending a sentence
        case $tok in
            https:* | http:* | */*/*:* ) continue ;;
        esac
        if [[ $tok == */* ]]; then
            if [[ $tok =~ \.(md|json|txt|sh|py|sbatch|c|h)$ ]]; then
                seen=$((seen + 1))
                check "sax ${cmd:-} --help: $tok exists in a clone" in_clone "$tok"
            elif [[ $tok =~ ^(docs|jobs|tests)/ ]]; then
                seen=$((seen + 1))
                check "sax ${cmd:-} --help: folder $tok exists in a clone" in_clone "${tok%/}"
            fi
        elif [[ $tok =~ ^[a-z].*\.md$ || $tok == README.md ]]; then
            seen=$((seen + 1))
            check "sax ${cmd:-} --help: $tok exists in a clone (top or docs/)" \
                bash -c "cd '$src' && { [[ -e '$tok' ]] || [[ -e 'docs/$tok' ]]; }"
        fi
    done
done
# the help texts do point to files: an extraction that finds none is broken
check "found the help texts' file references ($seen)" test "$seen" -ge 10
check_summary help_paths
