#!/usr/bin/env bash
# Whether two cukc builds give byte-identical cubins for each file: the check a compiler
# change that renumbers values (its PTX differs only in virtual register names) passes
# when ptxas makes the same machine code of it. Issue 36's guard: PTX byte-identical, or
# each difference explained.
#
#   scripts/cubin-compare.sh OLD_CUKC NEW_CUKC FILE...
#
# Each file is built for the target its `// target: sm_...` line names (else cukc's
# default); prints `same FILE` or `DIFF FILE`, and exits 1 if any differ.
set -uo pipefail
old=$1
new=$2
shift 2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
for file in "$@"; do
    target=$(grep -m1 -o '// target: sm_[0-9a-z]*' "$file" | sed 's#// target: ##')
    "$old" build "$file" -o "$scratch/old.cubin" ${target:+--target "$target"} >/dev/null 2>&1
    "$new" build "$file" -o "$scratch/new.cubin" ${target:+--target "$target"} >/dev/null 2>&1
    if cmp -s "$scratch/old.cubin" "$scratch/new.cubin"; then
        echo "same $file"
    else
        echo "DIFF $file"
        status=1
    fi
    rm -f "$scratch"/*.cubin
done
exit $status
