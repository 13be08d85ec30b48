#!/usr/bin/env bash
# CTest test (label unit): emits the dispatch headers again from the committed result files
# they were emitted from and fails if any differs by a byte from the committed headers in
# results/h200/dispatch. emit refuses two inputs that give the same table, so the files are
# named here, not found: when new headers are committed, list the results they came from
# (results/h200/README.md says which). It fails too where a committed header's provenance names a
# dirty revision (`git ...-dirty`): what ships must trace to a commit (issue 44, item 8).
# Usage: committed_headers.sh KK3TUNE SOURCE_DIR
set -euo pipefail
kk3=$1 source=$2
cd "$source"
committed=results/h200/dispatch/kk3tune/dispatch
[[ -d $committed ]] || { echo "no committed headers in $committed"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk3-headers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
inputs=(results/h200/sweep-v5-2026-12-06/sweep.json.gz)
"$kk3" emit "${inputs[@]}" --out "$tmp" 2>"$tmp/emit.log" || { cat "$tmp/emit.log"; exit 1; }
status=0
for h in "$committed"/*.h; do
  if ! cmp -s "$h" "$tmp/kk3tune/dispatch/$(basename "$h")"; then
    # diff exits 1 on a difference (and head may cut it off): neither may end the script under
    # set -e and pipefail before the other headers are compared.
    echo "DIFFERS: $h"; { diff "$h" "$tmp/kk3tune/dispatch/$(basename "$h")" || true; } | head -20; status=1
  fi
done
for g in "$tmp"/kk3tune/dispatch/*.h; do
  [[ -f $committed/$(basename "$g") ]] || { echo "not committed: $(basename "$g")"; status=1; }
done
if grep -Hn -- '(git [0-9a-f]*-dirty)' "$committed"/*.h; then
  echo "the committed headers name a dirty revision (above): they trace to an uncommitted tree;"
  echo "sweep again from a clean commit and emit from that result"
  status=1
fi
[[ $status == 0 ]] && echo "$(ls "$committed" | wc -l) committed headers re-emitted byte for byte from ${#inputs[@]} result files"
exit $status
