#!/usr/bin/env bash
# Build examples/bench/rma_bench.c with MPR's compiler wrapper, Open MPI's mpicc.openmpi and
# MPICH's mpicc.mpich, run the three one after the other at 2 ranks (interleaved, rotating the
# order every repetition, so load from other work on the machine hits all of them alike) and
# print one table: per window kind, test and size, the best over repetitions of each library's
# median batch (lowest latency in us, highest bandwidth in MB/s), and MPR's ratio to the best of
# the other two as a time ratio ("mpr/best": MPR's latency over the lowest, or the highest
# bandwidth over MPR's; <= 1 is the target, rows above 1 are marked with *).
#
#   examples/bench/compare-rma.sh [--build-dir DIR] [--reps N] [--max BYTES] [--iters N]
#                                 [--kinds "allocate create"] [--tests LIST] [--out DIR]
#     --build-dir  MPR build tree (default <repo>/_build): launcher/mpicc-build, launcher/mprun
#     --reps       repetitions of every run (default 3)
#     --max        largest size (default 4m)
#     --iters      rma_bench -i: operations per latency batch up to 16 KiB (default 1000)
#     --kinds      window kinds, rma_bench -a (default "allocate create")
#     --tests      rma_bench -c list (default put,get,acc,fop,putbw,getbw)
#     --out        where binaries and raw results go (default <build-dir>/rma-compare)
# Environment: MPR_CC / MPR_RUN override MPR's compiler and launcher commands; OMPI_RUN and
# MPICH_RUN the other two launchers (e.g. OMPI_RUN="mpirun.openmpi --allow-run-as-root
# --oversubscribe --mca osc pt2pt").
# Needs openmpi-bin and mpich (apt-get install openmpi-bin libopenmpi-dev mpich libmpich-dev);
# a library whose compiler is missing or whose build fails is left out of the table.
set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=$top/_build
reps=3
max=4m
iters=1000
kinds="allocate create"
tests=put,get,acc,fop,putbw,getbw
out=""
while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) build_dir=$2; shift ;;
    --reps) reps=$2; shift ;;
    --max) max=$2; shift ;;
    --iters) iters=$2; shift ;;
    --kinds) kinds=$2; shift ;;
    --tests) tests=$2; shift ;;
    --out) out=$2; shift ;;
    -h|--help) sed -n '2,25s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "compare-rma.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
out=${out:-$build_dir/rma-compare}
mkdir -p "$out/raw" || exit 2
rm -f "$out"/raw/*.txt
src=$top/examples/bench/rma_bench.c

impls=()
declare -A cc run
cc[mpr]=${MPR_CC:-$build_dir/launcher/mpicc-build}
run[mpr]=${MPR_RUN:-$build_dir/launcher/mprun}
cc[ompi]=mpicc.openmpi
run[ompi]=${OMPI_RUN:-mpirun.openmpi --allow-run-as-root --oversubscribe}
cc[mpich]=mpicc.mpich
run[mpich]=${MPICH_RUN:-mpirun.mpich}
for impl in mpr ompi mpich; do
  read -r -a c <<<"${cc[$impl]}"
  if ! command -v "${c[0]}" >/dev/null; then
    echo "# $impl: ${c[0]} not found, left out" >&2
    continue
  fi
  if ! "${c[@]}" -O2 -o "$out/rma_bench_$impl" "$src" >"$out/build_$impl.log" 2>&1; then
    echo "# $impl: build failed (see $out/build_$impl.log), left out" >&2
    continue
  fi
  impls+=("$impl")
done
[ ${#impls[@]} -gt 0 ] || { echo "compare-rma.sh: nothing built" >&2; exit 1; }

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for rep in $(seq 1 "$reps"); do
  for kind in $kinds; do
    k=$(( (rep - 1) % ${#impls[@]} ))
    order=("${impls[@]:k}" "${impls[@]:0:k}")
    for impl in "${order[@]}"; do
      read -r -a r <<<"${run[$impl]}"
      f=$out/raw/$impl.$kind.$rep.txt
      if ! timeout 900 "${r[@]}" -n 2 "$out/rma_bench_$impl" -m "$max" -i "$iters" -a "$kind" \
          -c "$tests" >"$f" 2>"$out/raw/$impl.$kind.$rep.err"; then
        echo "# $impl, $kind window, repetition $rep failed (see ${f%.txt}.err)" >&2
      fi
    done
  done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

# raw lines: "bytes put_us get_us acc_us fop_us put_MBs get_MBs" -> one value per
# (library, kind, test, bytes); the best over repetitions.
for impl in "${impls[@]}"; do
  for kind in $kinds; do
    cat "$out"/raw/"$impl.$kind".*.txt 2>/dev/null | awk -v impl="$impl" -v kind="$kind" '
      BEGIN { split("put_us get_us acc_us fop_us put_MBs get_MBs", name, " ") }
      !/^#/ && NF == 7 { for (i = 2; i <= 7; i++) if ($i != "-") print impl, kind, name[i - 1], $1, $i }'
  done
done | awk -v impls="${impls[*]}" -v kinds="$kinds" '
  {
    key = $2 " " $3 " " $4
    bw = $3 ~ /MBs$/
    if (!(($1, key) in v) || (bw ? $5 + 0 > v[$1, key] + 0 : $5 + 0 < v[$1, key] + 0)) v[$1, key] = $5
    if (!(key in seen)) { seen[key] = 1; keys[++nk] = key; isbw[key] = bw }
  }
  END {
    ni = split(impls, im, " ")
    printf "%-8s %-7s %9s", "window", "test", "bytes"
    for (i = 1; i <= ni; i++) printf " %11s", im[i]
    printf " %9s\n", "mpr/best"
    # keys in the order: kind, test, bytes (as first seen: rma_bench prints sizes ascending)
    nt = split("put_us get_us acc_us fop_us put_MBs get_MBs", tn, " ")
    nkind = split(kinds, kd, " ")
    for (a = 1; a <= nkind; a++) for (t = 1; t <= nt; t++) for (k = 1; k <= nk; k++) {
      split(keys[k], f, " ")
      if (f[1] != kd[a] || f[2] != tn[t]) continue
      printf "%-8s %-7s %9s", f[1], f[2], f[3]
      best = -1; mine = -1
      for (i = 1; i <= ni; i++) {
        m = ((im[i], keys[k]) in v) ? v[im[i], keys[k]] : ""
        printf " %11s", m == "" ? "-" : sprintf("%.2f", m)
        if (m == "") continue
        if (im[i] == "mpr") mine = m + 0
        else if (best < 0 || (isbw[keys[k]] ? m + 0 > best : m + 0 < best)) best = m + 0
      }
      if (mine > 0 && best > 0) {
        ratio = isbw[keys[k]] ? best / mine : mine / best
        printf " %8.2f%s\n", ratio, (ratio > 1 ? "*" : "")
      } else printf " %9s\n", "-"
    }
  }'
