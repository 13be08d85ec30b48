#!/usr/bin/env bash
# The committed .clang-format, kept: every C++ and CUDA file of the tool, its tests, fuzz targets,
# benchmarks and the downstream example must be exactly as clang-format writes it. The kernels
# (kernels/) and the generated headers are left out: the kernels' text is hashed into every cache
# key and the headers are written by codegen. Pinned to clang-format 14 (Debian bookworm's, which
# scripts/install-deps --tests installs): other versions format differently, so they skip (exit 77).
# Usage: clang_format.sh [REPO]   (fix with: scripts/format)
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
cf=${CLANG_FORMAT:-clang-format}
if ! command -v "$cf" >/dev/null; then
  echo "style.clang_format: $cf not found (scripts/install-deps --tests installs clang-format)" >&2
  exit 1
fi
major=$("$cf" --version | sed -nE 's/.*version ([0-9]+)\..*/\1/p')
if [ "$major" != 14 ]; then
  echo "style.clang_format: SKIPPED: $cf is version ${major:-unknown}; the check is pinned to 14" >&2
  exit 77
fi
mapfile -t files < <(scripts/format --list)
[ ${#files[@]} -gt 0 ] || { echo "style.clang_format: no files to check" >&2; exit 1; }
set +e
out=$("$cf" --dry-run --Werror --style=file "${files[@]}" 2>&1)
rc=$?
set -e
if [ $rc -ne 0 ]; then
  printf '%s\n' "$out" | grep -E '^[^ ].*: (warning|error):' | head -40
  n=$(printf '%s\n' "$out" | grep -Ec ': (warning|error):')
  bad=$(printf '%s\n' "$out" | grep -E ': (warning|error):' | cut -d: -f1 | sort -u | wc -l)
  echo "style.clang_format: $n places in $bad files differ from .clang-format; run scripts/format" >&2
  exit 1
fi
echo "style.clang_format: ${#files[@]} files as .clang-format writes them"
