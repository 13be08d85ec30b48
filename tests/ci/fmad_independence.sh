#!/usr/bin/env bash
# attn_res's bits do not depend on -fmad (issue 25): every shipped variant of the given modes,
# compiled as kk3tune compiles it but with -fmad=true (NVRTC's and nvcc's default) and with
# -fmad=false, gives the same SASS, instruction for instruction. The kernel writes every float
# multiply and add as an explicit round-to-nearest intrinsic (__fmul_rn, __fadd_rn, __fmaf_rn,
# ...), which the compiler never contracts; equal SASS proves that none was left out.
#
# The cubins themselves differ in a few bytes of metadata (the options recorded), so the SASS is
# compared: it needs nvdisasm (cuobjdump -sass runs it too), which not every CUDA toolkit has.
# Found as $NVDISASM, on PATH, in the toolkit, or in Python's site-packages (nvidia/cu*/bin) from
#   pip install nvidia-cuda-nvdisasm
# Without one that runs, the test is skipped (exit 77).
#
# usage: tests/ci/fmad_independence.sh KK3_FMAD_CUBINS [MODES] [FAMILY] [ARCH]
#   MODES default: common_nb8 (CI's share; every mode: results/cpu/attn_res-fmad-sass-2026-12-03.txt);
#   FAMILY attn_res; ARCH sm_90a
set -euo pipefail
tool=${1:?usage: fmad_independence.sh KK3_FMAD_CUBINS [MODES] [FAMILY] [ARCH]}
modes=${2:-common_nb8}
family=${3:-attn_res}
arch=${4:-sm_90a}

find_tool() {  # NAME: the first executable NAME found, or nothing
  local name=$1 upper dir
  upper=$(echo "$name" | tr a-z A-Z)
  if [[ -n ${!upper:-} && -x ${!upper} ]]; then echo "${!upper}"; return; fi
  if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return; fi
  for dir in /usr/local/cuda/bin ${CUDA_HOME:+$CUDA_HOME/bin}; do
    if [[ -x $dir/$name ]]; then echo "$dir/$name"; return; fi
  done
  for dir in $(python3 -c 'import site, sysconfig; print(" ".join(site.getsitepackages() + [site.getusersitepackages(), sysconfig.get_paths()["purelib"]]))' 2>/dev/null); do
    for f in "$dir"/nvidia/cu*/bin/"$name"; do
      if [[ -x $f ]]; then echo "$f"; return; fi
    done
  done
}
sass() {  # CUBIN: its SASS as text (nvdisasm's, without the cubin's own offsets of sections)
  "$nvdisasm" -c "$1"
}

nvdisasm=$(find_tool nvdisasm)
if [[ -z $nvdisasm ]]; then
  echo "SKIP: no nvdisasm (pip install nvidia-cuda-nvdisasm, or set NVDISASM)"
  exit 77
fi
if ! "$nvdisasm" --version >/dev/null 2>&1; then
  echo "SKIP: $nvdisasm does not run"
  exit 77
fi
echo "disassembler: $nvdisasm"

w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
"$tool" "$family" "$modes" "$arch" "$w/cubins"

# The control (x * y + z written plainly) must come out different: else the comparison could not
# see a contraction at all.
if ! sass "$w/cubins/control/control.fmad1.cubin" >"$w/1.sass" 2>&1; then
  echo "SKIP: $nvdisasm does not run: $(head -c 300 "$w/1.sass")"
  exit 77
fi
sass "$w/cubins/control/control.fmad0.cubin" >"$w/0.sass"
grep -q FFMA "$w/1.sass" && ! grep -q FFMA "$w/0.sass" ||
  { echo "FAIL: the control's x * y + z is not one FFMA with -fmad=true and two operations without"; exit 1; }
echo "control: x * y + z is an FFMA with -fmad=true, FMUL + FADD with -fmad=false (the comparison sees contraction)"

pairs=0 same=0 differ=()
for a in "$w"/cubins/*/*.fmad1.cubin; do
  [[ $a == */control/* ]] && continue
  b=${a%.fmad1.cubin}.fmad0.cubin
  variant=$(basename "${a%.fmad1.cubin}") mode=$(basename "$(dirname "$a")")
  pairs=$((pairs + 1))
  sass "$a" >"$w/1.sass"
  sass "$b" >"$w/0.sass"
  [[ -s $w/1.sass ]] || { echo "FAIL: no SASS from $a"; exit 1; }
  if cmp -s "$w/1.sass" "$w/0.sass"; then
    same=$((same + 1))
  else
    lines=$({ diff "$w/1.sass" "$w/0.sass" || true; } | grep -c '^[<>]' || true)
    differ+=("$mode/$variant ($lines SASS lines differ)")
  fi
done
nmodes=$(echo "$modes" | tr ',' '\n' | wc -l)
echo "$family @ $arch: $pairs variant builds ($((pairs / nmodes)) variants x $nmodes modes: $modes)," \
     "SASS with -fmad=true and -fmad=false identical in $same, different in ${#differ[@]}"
if ((${#differ[@]})); then
  printf '  differs: %s\n' "${differ[@]}"
  exit 1
fi
[[ $pairs -gt 0 ]] || { echo "FAIL: nothing compiled"; exit 1; }
