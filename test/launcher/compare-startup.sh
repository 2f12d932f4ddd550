#!/bin/bash
# Startup cost of `mprun -n N hello` beside Debian's Open MPI mpirun and MPICH mpiexec, in the
# same run on the same machine. examples/hello.c is built with each implementation's own mpicc;
# the launchers take turns run by run, so a change in machine load hits all three alike.
# Prints a Markdown table of wall times (median, mean and min over the runs, in ms) and whether
# mprun is at most the faster of the other two. A benchmark: never part of the pass/fail suite.
#
# Usage: compare-startup.sh [-r RUNS] [-n "2 8"] [BUILDDIR]
#   BUILDDIR defaults to $MPR_BUILDDIR, else the current directory; it needs launcher/mprun,
#   launcher/mpicc-build and .libs/libmpi.so (made with make if missing).
#   Open MPI: mpicc.openmpi + mpirun.openmpi (openmpi-bin, libopenmpi-dev);
#   MPICH: mpicc.mpich + mpiexec.mpich (apt-get install mpich). A missing one is left out.
set -u

runs=20
sizes="2 8"
while getopts "r:n:" opt; do
    case $opt in
        r) runs=$OPTARG ;;
        n) sizes=$OPTARG ;;
        *) echo "usage: $0 [-r RUNS] [-n \"2 8\"] [BUILDDIR]" >&2; exit 64 ;;
    esac
done
shift $((OPTIND - 1))
builddir=$(cd "${1:-${MPR_BUILDDIR:-$PWD}}" && pwd) || exit 1
srcroot=$(cd "$(dirname "$0")/../.." && pwd)
hello_src=$srcroot/examples/hello.c

if [ ! -x "$builddir/launcher/mprun" ] || [ ! -x "$builddir/launcher/mpicc-build" ] ||
    [ ! -e "$builddir/.libs/libmpi.so" ]; then
    make -C "$builddir" launcher/mprun launcher/mpicc-build libmpi.la >/dev/null 2>&1
fi

work=$(mktemp -d /tmp/compare-startup.XXXXXX)
trap 'rm -rf "$work"' EXIT

names=()
declare -A launch
add() {  # add NAME MPICC LAUNCHER...: builds hello with MPICC; NAME runs as LAUNCHER -n N hello
    local name=$1 cc=$2
    shift 2
    if ! command -v "$cc" >/dev/null 2>&1 || ! command -v "$1" >/dev/null 2>&1; then
        echo "note: $name left out ($cc or $1 not installed)" >&2
        return
    fi
    if ! "$cc" -O2 -o "$work/hello-$name" "$hello_src" 2>"$work/cc-$name.log"; then
        echo "note: $name left out (building hello failed: $(head -1 "$work/cc-$name.log"))" >&2
        return
    fi
    names+=("$name")
    launch[$name]="$* -n @N@ $work/hello-$name"
}
add mprun "$builddir/launcher/mpicc-build" "$builddir/launcher/mprun"
add openmpi mpicc.openmpi mpirun.openmpi --allow-run-as-root --oversubscribe
add mpich mpicc.mpich mpiexec.mpich

now_ns() { date +%s%N; }

declare -A samples
for n in $sizes; do
    for name in "${names[@]}"; do
        cmd=${launch[$name]//@N@/$n}
        # One untimed run first: page cache, shared libraries.
        if ! $cmd >"$work/out" 2>&1 || [ "$(grep -c '^Hello from rank' "$work/out")" != "$n" ]; then
            echo "note: $name -n $n failed: $(tail -1 "$work/out")" >&2
        fi
    done
    for ((i = 0; i < runs; ++i)); do
        for name in "${names[@]}"; do
            cmd=${launch[$name]//@N@/$n}
            start=$(now_ns)
            $cmd >/dev/null 2>&1
            samples[$name,$n]+="$((($(now_ns) - start) / 1000)) "
        done
    done
done

# stats "us us us ...": "median mean min" in ms with one decimal.
stats() {
    tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -n |
        awk '{ v[NR] = $1; s += $1 }
             END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
                   printf "%.1f %.1f %.1f", m / 1000, s / NR / 1000, v[1] / 1000 }'
}

echo "Startup: wall time of LAUNCHER -n N hello, $runs runs each, interleaved" \
    "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| launcher | ranks | median ms | mean ms | min ms |"
echo "|---|---|---|---|---|"
declare -A median
for n in $sizes; do
    for name in "${names[@]}"; do
        read -r med mean min <<<"$(stats "${samples[$name,$n]}")"
        median[$name,$n]=$med
        echo "| $name | $n | $med | $mean | $min |"
    done
done
echo
verdict=0
for n in $sizes; do
    best="" best_name=""
    for name in "${names[@]}"; do
        [ "$name" = mprun ] && continue
        if [ -z "$best" ] || awk "BEGIN { exit !(${median[$name,$n]} < $best) }"; then
            best=${median[$name,$n]} best_name=$name
        fi
    done
    [ -z "$best" ] && continue
    ours=${median[mprun,$n]:-}
    [ -z "$ours" ] && continue
    if awk "BEGIN { exit !($ours <= $best) }"; then
        echo "-n $n: mprun median $ours ms <= $best_name $best ms (the faster of the others): target met"
    else
        echo "-n $n: mprun median $ours ms > $best_name $best ms (the faster of the others): target missed"
        verdict=1
    fi
done
exit $verdict
