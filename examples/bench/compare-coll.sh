#!/usr/bin/env bash
# Build examples/bench/coll_bench.c with MPR's compiler wrapper, Open MPI's mpicc.openmpi and
# MPICH's mpicc.mpich, run the three side by side (interleaved, so load from other work on the
# machine hits all of them alike) and print one table: per rank count, collective and size, the
# median over repetitions of each library's median batch latency (us), and MPR's ratio to the
# faster of the other two ("<=1" is the target; rows above 1 are marked with *).
#
#   examples/bench/compare-coll.sh [--build-dir DIR] [--ranks "2 4 8"] [--reps N]
#                                  [--colls LIST] [--max BYTES] [--time SECONDS] [--out DIR]
#     --build-dir  MPR build tree (default <repo>/_build): launcher/mpicc-build, launcher/mprun
#     --ranks      rank counts (default "2 4 8")
#     --reps       repetitions of every run (default 3)
#     --colls      coll_bench -c list (default barrier,bcast,reduce,allreduce,allgather,alltoall)
#     --max        largest size (default 4m)
#     --time       seconds of timed calls per size and run (default 0.2)
#     --out        where binaries and raw results go (default <build-dir>/coll-compare)
# Environment: MPR_CC / MPR_RUN override MPR's compiler and launcher commands.
# Needs openmpi-bin and mpich (apt-get install openmpi-bin libopenmpi-dev mpich libmpich-dev);
# a library whose compiler is missing is left out of the table.
set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=$top/_build
ranks="2 4 8"
reps=3
colls=barrier,bcast,reduce,allreduce,allgather,alltoall
max=4m
secs=0.2
out=""
while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) build_dir=$2; shift ;;
    --ranks) ranks=$2; shift ;;
    --reps) reps=$2; shift ;;
    --colls) colls=$2; shift ;;
    --max) max=$2; shift ;;
    --time) secs=$2; shift ;;
    --out) out=$2; shift ;;
    -h|--help) sed -n '2,19s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "compare-coll.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
out=${out:-$build_dir/coll-compare}
mkdir -p "$out/raw" || exit 2
src=$top/examples/bench/coll_bench.c

impls=()
declare -A cc run
cc[mpr]=${MPR_CC:-$build_dir/launcher/mpicc-build}
run[mpr]=${MPR_RUN:-$build_dir/launcher/mprun}
cc[ompi]=mpicc.openmpi
run[ompi]="mpirun.openmpi --allow-run-as-root --oversubscribe"
cc[mpich]=mpicc.mpich
run[mpich]=mpirun.mpich
for impl in mpr ompi mpich; do
  read -r -a c <<<"${cc[$impl]}"
  if ! command -v "${c[0]}" >/dev/null; then
    echo "# $impl: ${c[0]} not found, left out" >&2
    continue
  fi
  if ! "${c[@]}" -O2 -o "$out/coll_bench_$impl" "$src" >"$out/build_$impl.log" 2>&1; then
    echo "# $impl: build failed (see $out/build_$impl.log), left out" >&2
    continue
  fi
  impls+=("$impl")
done
[ ${#impls[@]} -gt 0 ] || { echo "compare-coll.sh: nothing built" >&2; exit 1; }

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for rep in $(seq 1 "$reps"); do
  for n in $ranks; do
    # Rotate the order each repetition so no library always runs right after another.
    k=$(( (rep - 1) % ${#impls[@]} ))
    order=("${impls[@]:k}" "${impls[@]:0:k}")
    for impl in "${order[@]}"; do
      read -r -a r <<<"${run[$impl]}"
      f=$out/raw/$impl.$n.$rep.txt
      if ! timeout 1800 "${r[@]}" -n "$n" "$out/coll_bench_$impl" -c "$colls" -m "$max" -t "$secs" \
          >"$f" 2>"$out/raw/$impl.$n.$rep.err"; then
        echo "# $impl at $n ranks, repetition $rep failed (see $f.err)" >&2
      fi
    done
  done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

# raw lines: "  coll bytes calls median_us best_us" -> median over repetitions per library.
for impl in "${impls[@]}"; do
  for n in $ranks; do
    cat "$out"/raw/"$impl.$n".*.txt 2>/dev/null | awk -v impl="$impl" -v n="$n" \
      '!/^#/ && NF == 5 { print impl, n, $1, $2, $4 }'
  done
done | awk -v impls="${impls[*]}" '
  { key = $2 " " $3 " " $4; v[$1, key] = v[$1, key] " " $5; if (!(key in seen)) { seen[key] = 1; keys[++nk] = key } }
  function median(list,   a, m, i, j, t) {
    m = split(list, a, " ")
    if (m == 0) return ""
    for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
  }
  END {
    ni = split(impls, im, " ")
    printf "%5s %-10s %9s", "ranks", "coll", "bytes"
    for (i = 1; i <= ni; i++) printf " %11s", im[i] "_us"
    printf " %9s\n", "mpr/best"
    for (k = 1; k <= nk; k++) {
      split(keys[k], f, " ")
      printf "%5s %-10s %9s", f[1], f[2], f[3]
      best = -1; mine = -1
      for (i = 1; i <= ni; i++) {
        m = median(v[im[i], keys[k]])
        printf " %11s", m == "" ? "-" : sprintf("%.2f", m)
        if (m == "") continue
        if (im[i] == "mpr") mine = m
        else if (best < 0 || m + 0 < best) best = m + 0
      }
      if (mine >= 0 && best > 0) printf " %8.2f%s\n", mine / best, (mine > best ? "*" : "")
      else printf " %9s\n", "-"
    }
  }'
