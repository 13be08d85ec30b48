#!/usr/bin/env bash
# Usage: bench/attn_res_gpu.sh OUTDIR tests|bench
# The GPU calls for attn_res, in two steps that each fit one device call:
#   bench/attn_res_gpu.sh OUTDIR tests   every gpu test, then `kk3tune verify` of every variant
#                                         (test-only ones included) with a table of the figures
#   bench/attn_res_gpu.sh OUTDIR bench   the side-by-side benchmark (bench/attn_res_bench.py: kk3tune's
#                                         best and, with KK3_BENCH_SWEEP=FILE, the dispatch table's choice, the
#                                         copy ceiling, the Triton peer in vLLM's design with vLLM's tiles and
#                                         tuned, torch.compile) into OUTDIR/bench, its summary printed;
#                                         then (KK3_BENCH_COLD=0 leaves it out) the cold instrument,
#                                         bench/attn_res_cold.py: ncu --cache-control all of the table's
#                                         choice, the graph-best variant and the tuned Triton tile per shape,
#                                         into OUTDIR/bench/cold.{json,md}, in KK3_BENCH_COLD_S (default 200)
#                                         seconds of the wall; with
#                                         KK3_BENCH_NCU_S=N > 0 then Nsight Compute on the fastest common_nb8
#                                         variants (bench/attn_res_ncu.sh) into OUTDIR/ncu, in N seconds
# The bench step holds to KK3_BENCH_WALL_S (default 540 s, to fit a 10-minute device call with room to
# start and to bring the files back) in all: the benchmark gets KK3_BENCH_BUDGET_S (default: the wall
# less KK3_BENCH_NCU_S (default 0) and 20 s) and is killed 10 s before its share of the wall; the
# summary is then written again from whatever the benchmark left (a run killed mid-stage keeps every
# shape it measured), and ncu gets what is left. The whole default benchmark takes about 3 to 5 minutes
# on the H200, most of it kk3tune's `time --variant all` of 30 shapes (about 65 s with 44 variants a
# mode, 170 s with 118), then torch.compile (about 60 s) and the Triton peer (about 35 s); a cold NVRTC
# cache adds the compiles of every variant. The benchmark's other knobs (KK3_BENCH_CASES, _TOKENS,
# _VARIANTS, _TILES, _SWEEP, ...) pass through; see `python3 bench/attn_res_bench.py --help`. To keep
# NVRTC out of the timed call, fill the compile cache on the build machine (`kk3tune compile --family
# attn_res --arch sm_90a` with XDG_CACHE_HOME=DIR) and carry DIR along with the same XDG_CACHE_HOME.
# The tests use compiled-in paths: the checkout must be reachable as /work/main.
set -uo pipefail
out=${1:?usage: bench/attn_res_gpu.sh OUTDIR tests|bench}
step=${2:?usage: bench/attn_res_gpu.sh OUTDIR tests|bench}
kk3=${KK3TUNE:-build/kk3tune}
here=$(dirname "$0")
mkdir -p "$out"
case $step in
  tests)
    s=$SECONDS
    (cd "$(dirname "$kk3")" && ctest -L gpu --output-on-failure) >"$out/gpu-tests.txt" 2>&1
    echo "gpu tests rc=$? ($((SECONDS - s)) s)"; grep -E "tests passed|Failed|\*\*\*" "$out/gpu-tests.txt" | tail -5
    s=$SECONDS
    "$kk3" verify --family attn_res --tokens 64 --include-test-knobs --seed 20261130 >"$out/verify.txt" 2>&1
    echo "verify rc=$? ($((SECONDS - s)) s)"; tail -2 "$out/verify.txt" ;;
  bench)
    s=$SECONDS
    wall=${KK3_BENCH_WALL_S:-540}
    ncu_s=${KK3_BENCH_NCU_S:-0}
    cold_s=$([ "${KK3_BENCH_COLD:-1}" != 0 ] && echo "${KK3_BENCH_COLD_S:-200}" || echo 0)
    export KK3_BENCH_BUDGET_S=${KK3_BENCH_BUDGET_S:-$((wall - ncu_s - cold_s - 20))}
    timeout "$((wall - ncu_s - cold_s - 10))" python3 "$here/attn_res_bench.py" "$out/bench" >"$out/bench.log" 2>&1
    echo "bench rc=$? ($((SECONDS - s)) s, budget ${KK3_BENCH_BUDGET_S} s)"
    python3 "$here/summarize_attn_res_bench.py" "$out/bench" 2>>"$out/bench.log" || tail -20 "$out/bench.log"
    if [ "${KK3_BENCH_COLD:-1}" != 0 ]; then  # the cold instrument: ncu with every cache flushed, kk3tune and Triton
      KK3TUNE="$kk3" KK3_COLD_BUDGET_S=$((wall - ncu_s - (SECONDS - s) - 30)) python3 "$here/attn_res_cold.py" "$out/bench" \
        >"$out/cold.log" 2>&1
      echo "cold rc=$? ($((SECONDS - s)) s)"; sed -n '/^# attn_res: graph and cold/,$p' "$out/cold.log"
    fi
    if [ "$ncu_s" -gt 0 ]; then
      KK3_NCU_BUDGET_S=$((wall - (SECONDS - s))) "$here/attn_res_ncu.sh" "$out/bench" "$out/ncu"
    fi ;;
  *) echo "unknown step $step (tests or bench)" >&2; exit 2 ;;
esac
