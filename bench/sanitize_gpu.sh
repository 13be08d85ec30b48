#!/usr/bin/env bash
# compute-sanitizer memcheck and racecheck over every shipped variant of both families, at their
# edge shapes (issue 8, item 5). Run on the GPU machine from the repository root, after building:
#   bench/sanitize_gpu.sh OUTDIR [SWEEP.json]
# SWEEP.json defaults to the sweep the committed dispatch headers were emitted from. Leaves two
# files in OUTDIR: summary.md (the table and every command, exactly as run) and logs.tgz (each
# run's sanitizer log and kk3tune's own output). Exit 0 when every run came back clean, 1 when
# one did not (or was cut short), 2 for bad usage or a missing tool, 3 without a GPU.
#
# Shipped: per family and mode, the variants the sweep's dispatch section selects for some token
# range, plus the family's reference variant (every select() falls back to it on an arch without
# results). bench/shipped_variants.py reads them; with the default sweep it also checks that
# each family's union is exactly the all_variants list of results/h200/dispatch/.
#
# Shapes: verify's own edge shapes (src/families/*/ edge_shapes), which are small:
#   mla_decode_epilogue  T=1, 64, 65 at H=16; T=5 at H=7; T=33 at H=16 with strided inputs;
#                        T=20 at H=3 with cache block size 17, strided; T=2 at H=1, block size 1.
#                        One warp (or SPLIT warps) per row of 576 elements, T*(H+1) rows: these
#                        put a partial last CTA behind every THREADS/SPLIT of the shipped
#                        variants, cover odd head counts and paged-cache blocks that split rows.
#   attn_res             T=1; T=2 strided; T=7; T=64 strided, at the mode's NB. One cluster of
#                        B CTAs per token in every shipped variant (TPC=1), so the work of a CTA
#                        does not depend on T: T=1 is already the largest per-CTA count, and more
#                        tokens only add identical clusters.
# No shipped variant has a loop over tokens inside a CTA (ROWS_PER_WARP=1, TPC=1), so the large T
# of the dispatch ranges (up to 8192) add no code path; they are left out because memcheck at
# T=8192 would move about 1 GB per launch for attn_res and run for many minutes.
#
# memcheck: those shapes, each variant once plainly and once under PDL behind the delayed
# producer (--hazard-runs 1), which exercises the early reads before griddepcontrol.wait.
# racecheck (shared-memory hazards) on a subset, to stay within the time:
#   attn_res             every edge shape, without the hazard run (the kernel's shared-memory
#                        traffic is the same with or without a producer in front);
#   mla_decode_epilogue  T=1 and T=65 at H=16 only, without the hazard run: its kernel declares
#                        no shared memory, so racecheck can only confirm there is nothing to find.
#
# Time: the native verify runs first (it also fills the compile cache, so no sanitized run waits
# for NVRTC), then 11 memcheck and 11 racecheck runs, each under its own timeout; a run that would
# start past the budget (SANITIZE_BUDGET_S, default 450 s in all) is skipped and shows as such.
# Environment: KK3TUNE (default build/kk3tune), SANITIZER (default
# /usr/local/cuda/bin/compute-sanitizer), SANITIZE_BUDGET_S.
set -uo pipefail
out=${1:?usage: bench/sanitize_gpu.sh OUTDIR [SWEEP.json]}
default_sweep=results/h200/sweep-default-2026-11-29/default-warm.json
sweep=${2:-$default_sweep}
kk3=${KK3TUNE:-build/kk3tune}
sanitizer=${SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
budget_s=${SANITIZE_BUDGET_S:-450}
seed=20261201
here=$(dirname "$0")

mkdir -p "$out/logs"
logs="$out/logs"
cache="$out/cache"
start=$SECONDS
rows=()       # one "family|mode|tool|variants|rc|verify|errors" per run, for the table
commands=()   # every command line, as run
notes=()      # lines for the summary's end
failed=0

# The table, summary.md and logs.tgz; then only those two files stay in OUTDIR (the GPU machine
# gives back at most 8 files). Called on every exit from here on.
finish() {
  local status=$1
  echo
  printf '%s\n' "family|mode|tool|variants|rc|verify|errors" "${rows[@]}" | awk -F'|' '
    { for (i = 1; i <= NF; ++i) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } n = NF }
    END { for (r = 1; r <= NR; ++r) { for (i = 1; i <= n; ++i) printf "%-*s  ", w[i], cell[r, i]; printf "\n" } }'
  {
    echo "# compute-sanitizer over the shipped variants"
    echo
    echo "- sweep: \`$sweep\`; seed $seed; $((SECONDS - start)) s in all; exit status $status"
    echo "- GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || echo unknown)"
    echo "- sanitizer: $sanitizer, $("$sanitizer" --version 2>/dev/null | grep -m1 -i version || echo "no version")"
    echo "- kk3tune: $("$kk3" --version 2>/dev/null || echo missing)"
    echo
    echo "rc: the sanitizer's exit status (99: it found errors; 124: timed out; 125: not run, the"
    echo "budget was spent; otherwise kk3tune verify's: 0 ok, 1 a variant failed, 3 no GPU; native"
    echo "rows: kk3tune verify without the sanitizer). verify: variant-modes ok/failed"
    echo "as verify reports them. errors: from the log's ERROR SUMMARY (memcheck) or RACECHECK"
    echo "SUMMARY (racecheck) line."
    echo
    echo "| family | mode | tool | variants | rc | verify | errors |"
    echo "|---|---|---|---:|---:|---|---|"
    for r in "${rows[@]}"; do echo "| ${r//|/ | } |"; done
    echo
    for n in "${notes[@]}"; do echo "- $n"; done
    echo
    echo "## Commands, as run (logs in logs.tgz under logs/)"
    echo
    echo '```'
    printf '%s\n' "${commands[@]}"
    echo '```'
  } >"$out/summary.md"
  tar czf "$out/logs.tgz" -C "$out" logs
  rm -rf "$logs" "$cache"
  echo "wrote $out/summary.md and $out/logs.tgz"
  exit "$status"
}

# Stops before any sanitizer run, saying why on stderr and in summary.md.
stop() {  # status message
  echo "$2" >&2
  notes+=("stopped: $2")
  finish "$1"
}

# Checks that cost nothing first: the binary, the sweep, the lists, the sanitizer.
[ -x "$kk3" ] || stop 2 "no $kk3: build first (cmake --build build), from the repository root"
[ -f "$sweep" ] || stop 2 "no sweep result $sweep"
check_headers=()
[ "$sweep" = "$default_sweep" ] && check_headers=(--headers results/h200/dispatch)
if ! python3 "$here/shipped_variants.py" "$sweep" "${check_headers[@]}" >"$logs/shipped.tsv" 2>"$logs/shipped.err"; then
  cat "$logs/shipped.err" >&2
  stop 2 "the shipped variants could not be read from $sweep (or disagree with the headers)"
fi
cat "$logs/shipped.err"
[ -x "$sanitizer" ] || stop 2 "no compute-sanitizer at $sanitizer (set SANITIZER)"
racecheck_opts=()
if "$sanitizer" --help 2>&1 | grep -q -- '--racecheck-report'; then
  racecheck_opts=(--racecheck-report all)  # every hazard, not only the analysis summary
fi

# family mode count list, one line per family and mode.
mapfile -t lists <"$logs/shipped.tsv"

# Runs one command under a timeout within what is left of the budget, into logs/NAME.out;
# sets rc (125: skipped, no time left).
run_limited() {  # name limit_s command...
  local name=$1 limit=$2; shift 2
  local left=$((budget_s - (SECONDS - start)))
  ((left < limit)) && limit=$left
  if ((limit < 20)); then
    commands+=("(skipped, budget spent) $*")
    rc=125
    return
  fi
  commands+=("timeout $limit $*")
  timeout -k 10 "$limit" "$@" >"$logs/$name.out" 2>&1
  rc=$?
}

# "N ok, M failed" from verify's closing line.
verify_result() {  # name
  local r
  r=$(sed -n 's/^\([0-9]*\) variant-modes ok, \([0-9]*\) failed.*/\1 ok, \2 failed/p' "$logs/$1.out" 2>/dev/null | tail -1)
  echo "${r:--}"
}

# Native verify of every list first: fails fast without a GPU, fills the compile cache.
for line in "${lists[@]}"; do
  IFS=$'\t' read -r family mode count list <<<"$line"
  name=native-$family-$mode
  run_limited "$name" 60 "$kk3" verify --family "$family" --mode "$mode" --variant "$list" --seed "$seed" --cache-dir "$cache"
  if ((rc == 3)); then
    rows+=("$family|$mode|native|$count|$rc|-|-")
    stop 3 "kk3tune verify exited 3 (no driver or GPU, or the compile environment): $(tail -1 "$logs/$name.out")"
  fi
  ((rc != 0)) && failed=1
  rows+=("$family|$mode|native|$count|$rc|$(verify_result "$name")|-")
  echo "native $family/$mode: rc=$rc, $(verify_result "$name") ($((SECONDS - start)) s)"
done

# One sanitized verify.
sanitize() {  # tool family mode count list limit_s verify-args...
  local tool=$1 family=$2 mode=$3 count=$4 list=$5 limit=$6; shift 6
  local name=$tool-$family-$mode tool_opts=()
  [ "$tool" = racecheck ] && tool_opts=("${racecheck_opts[@]}")
  run_limited "$name" "$limit" "$sanitizer" --tool "$tool" "${tool_opts[@]}" --error-exitcode 99 --log-file "$logs/$name.log" \
    "$kk3" verify --family "$family" --mode "$mode" --variant "$list" --seed "$seed" --cache-dir "$cache" "$@"
  local errors
  if ((rc == 125)); then
    errors="skipped: budget spent"
  elif [ "$tool" = racecheck ] && grep -q 'RACECHECK SUMMARY' "$logs/$name.log" 2>/dev/null; then
    errors=$(grep -o 'RACECHECK SUMMARY: .*' "$logs/$name.log" | tail -1 | sed 's/RACECHECK SUMMARY: //')
  else
    errors=$(grep -o 'ERROR SUMMARY: [0-9]* errors\?' "$logs/$name.log" 2>/dev/null | tail -1 | sed 's/ERROR SUMMARY: //')
  fi
  [ -n "$errors" ] || errors="no summary line"
  case $errors in "0 errors" | "0 hazards "*) ;; *) failed=1 ;; esac
  ((rc != 0)) && failed=1
  rows+=("$family|$mode|$tool|$count|$rc|$(verify_result "$name")|$errors")
  echo "$tool $family/$mode: rc=$rc, $errors ($((SECONDS - start)) s)"
}

for line in "${lists[@]}"; do
  IFS=$'\t' read -r family mode count list <<<"$line"
  sanitize memcheck "$family" "$mode" "$count" "$list" 120 --hazard-runs 1
done
# attn_res first: its kernel is the one with shared memory (and distributed shared memory across
# the cluster), so if the budget runs short it is mla's formality that is skipped.
race_order=()
for line in "${lists[@]}"; do [[ $line == attn_res$'\t'* ]] && race_order+=("$line"); done
for line in "${lists[@]}"; do [[ $line == attn_res$'\t'* ]] || race_order+=("$line"); done
for line in "${race_order[@]}"; do
  IFS=$'\t' read -r family mode count list <<<"$line"
  if [ "$family" = mla_decode_epilogue ]; then
    sanitize racecheck "$family" "$mode" "$count" "$list" 90 --hazard-runs 0 --no-edge-shapes --tokens 1,65
  else
    sanitize racecheck "$family" "$mode" "$count" "$list" 90 --hazard-runs 0
  fi
done
((${#racecheck_opts[@]})) || notes+=("this compute-sanitizer has no --racecheck-report: racecheck ran with its default report")
notes+=("racecheck ran on a subset: attn_res at its edge shapes without the hazard run; mla_decode_epilogue (no shared memory) at T=1 and T=65 only")
finish "$failed"
