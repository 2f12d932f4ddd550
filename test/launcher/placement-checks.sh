# Sourced by run-launcher-tests.sh (not run on its own): checks of mprun's placement and
# binding, and of oversubscribed jobs. Uses that script's helpers (run, and the harness's pass, fail, skip) and
# variables (MPRUN, CLIENT, PROBE, T, builddir, OVERSUB_JOBS).

# ---- placement and binding ---------------------------------------------------------------------
# Expectations come from the kernel's view of this machine (/sys), so the checks hold on any
# topology: a rank bound to a core runs on exactly that core's allowed PUs, one bound to a NUMA
# node or package on all allowed PUs of it, an unbound one where mprun itself may run.

# expand_list "0-2,5" -> "0 1 2 5"
expand_list() {
    local out="" part a b c parts
    IFS=, read -ra parts <<<"$1"
    for part in "${parts[@]}"; do
        if [[ $part == *-* ]]; then
            a=${part%-*} b=${part#*-}
            for ((c = a; c <= b; c++)); do out+="$c "; done
        elif [ -n "$part" ]; then
            out+="$part "
        fi
    done
    echo "${out% }"
}
list_mask() {
    local m=0 c
    for c in $(expand_list "$1"); do m=$((m | (1 << c))); done
    printf '0x%x' $m
}
# intersect LIST LIST -> expanded common PUs
intersect() {
    local x y out=""
    for x in $(expand_list "$1"); do
        for y in $(expand_list "$2"); do [ "$x" = "$y" ] && out+="$x "; done
    done
    echo "${out% }"
}
topo_file() {  # topo_file CPU NEW-NAME OLD-NAME
    cat "/sys/devices/system/cpu/cpu$1/topology/$2" 2>/dev/null ||
        cat "/sys/devices/system/cpu/cpu$1/topology/$3" 2>/dev/null || echo "$1"
}
core_of() { topo_file "$1" core_cpus_list thread_siblings_list; }
package_of() { topo_file "$1" package_cpus_list core_siblings_list; }
numa_of() {
    local d
    for d in /sys/devices/system/cpu/cpu"$1"/node*; do
        [ -e "$d" ] && cat "/sys/devices/system/node/${d##*/}/cpulist" && return
    done
    echo "$allowed"
}
allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
usable_cores=$(for c in $(expand_list "$allowed"); do core_of "$c"; done | sort -u | wc -l)
nb=$((usable_cores >= 2 ? 2 : 1))

# check_placement NAME BIND NRANKS: $T/out holds the client's "affinity" lines, $T/err the
# --report-bindings lines; sets WHY (empty when everything matches).
check_placement() {
    local bind=$1 n=$2 r line aff cpuset rep pus mask first want seen="" affs=()
    WHY=""
    [ $RC = 0 ] || WHY="rc=$RC stderr '$ERR';"
    [ "$(grep -c '^rank ' "$T/err")" = "$n" ] || WHY+=" $(grep -c '^rank ' "$T/err") report lines;"
    for ((r = 0; r < n; r++)); do
        line=$(grep "^rank $r affinity " "$T/out")
        aff=$(sed -n 's/^rank [0-9]* affinity \([^ ]*\) .*/\1/p' <<<"$line")
        cpuset=$(sed -n 's/.* cpuset hwloc:\([^ ]*\) .*/\1/p' <<<"$line")
        rep=$(grep "^rank $r " "$T/err")
        pus=$(sed -n 's/.* \[PU \([^]]*\)\] mask 0x[0-9a-f]*$/\1/p' <<<"$rep")
        mask=$(sed -n 's/.* mask \(0x[0-9a-f]*\)$/\1/p' <<<"$rep")
        if [ -z "$aff" ] || [ -z "$pus" ]; then
            WHY+=" rank $r: no affinity line or no report line ('$line' / '$rep');"
            continue
        fi
        [ "$(expand_list "$pus")" = "$(expand_list "$aff")" ] ||
            WHY+=" rank $r: reported [PU $pus], sched_getaffinity $aff;"
        [ "$(expand_list "$cpuset")" = "$(expand_list "$aff")" ] ||
            WHY+=" rank $r: PMIX_CPUSET '$cpuset', sched_getaffinity $aff;"
        [ "$mask" = "$(list_mask "$aff")" ] || WHY+=" rank $r: mask $mask for PUs $aff;"
        first=$(expand_list "$aff" | cut -d' ' -f1)
        case $bind in
            core) want=$(intersect "$(core_of "$first")" "$allowed") ;;
            numa) want=$(intersect "$(numa_of "$first")" "$allowed") ;;
            package) want=$(intersect "$(package_of "$first")" "$allowed") ;;
            none) want=$(expand_list "$allowed") ;;
        esac
        [ "$(expand_list "$aff")" = "$want" ] || WHY+=" rank $r: runs on $aff, want $want;"
        if [ "$bind" = none ]; then
            grep -q "^rank $r not bound \[" <<<"$rep" || WHY+=" rank $r: '$rep';"
        else
            grep -q -E "^rank $r bound to ${bind}s? [0-9,-]+ \[" <<<"$rep" ||
                WHY+=" rank $r: '$rep';"
        fi
        if [ "$bind" = core ] && ((r < usable_cores)); then
            case " $seen " in *" $aff "*) WHY+=" rank $r shares core PUs $aff;" ;; esac
            seen+=" $aff"
        elif [ "$bind" = core ]; then
            # Beyond the cores the ranks wrap around them: rank r shares rank r - cores' core.
            [ "$aff" = "${affs[r - usable_cores]}" ] ||
                WHY+=" rank $r runs on $aff, rank $((r - usable_cores)) on ${affs[r - usable_cores]};"
        fi
        affs[r]=$aff
    done
}

for map in core numa package node; do
    for bind in core numa package none; do
        run "$MPRUN" -n $nb --map-by $map --bind-to $bind --report-bindings "$CLIENT" affinity
        check_placement $bind $nb
        if [ -z "$WHY" ]; then pass "bind-map-$map-bind-$bind"
        else fail "bind-map-$map-bind-$bind" "$WHY"; fi
    done
done

# Defaults: bound to cores; beyond the cores the ranks wrap around them and are flagged
# oversubscribed.
run "$MPRUN" -n "$usable_cores" --report-bindings "$CLIENT" affinity
check_placement core "$usable_cores"
n_flag=$(grep -c 'oversubscribed 0$' "$T/out")
if [ -z "$WHY" ] && [ "$n_flag" = "$usable_cores" ]; then pass bind-default-core-when-ranks-fit
else fail bind-default-core-when-ranks-fit "$WHY $n_flag ranks not oversubscribed"; fi

over=$((usable_cores * 2 + 1))
run "$MPRUN" -n $over --report-bindings "$CLIENT" affinity
check_placement core $over
n_flag=$(grep -c 'oversubscribed 1$' "$T/out")
if [ -z "$WHY" ] && [ "$n_flag" = "$over" ]; then pass bind-default-core-wraps-when-oversubscribed
else fail bind-default-core-wraps-when-oversubscribed "$WHY $n_flag/$over ranks see oversubscribed"; fi

# Inside a narrower cpuset (taskset): ranks never leave it.
last_cpu=$(expand_list "$allowed" | tr ' ' '\n' | tail -1)
run taskset -c "$last_cpu" "$MPRUN" -n 2 --report-bindings "$CLIENT" affinity
a0=$(sed -n 's/^rank 0 affinity \([^ ]*\) .*/\1/p' "$T/out")
a1=$(sed -n 's/^rank 1 affinity \([^ ]*\) .*/\1/p' "$T/out")
if [ $RC = 0 ] && [ "$a0" = "$last_cpu" ] && [ "$a1" = "$last_cpu" ] &&
    [ "$(grep -c 'oversubscribed 1$' "$T/out")" = 2 ]
then pass bind-stays-inside-mprun-cpuset
else fail bind-stays-inside-mprun-cpuset "rc=$RC affinities '$a0' '$a1' (want $last_cpu), '$OUT'"; fi

if [ "$usable_cores" -ge 2 ]; then
    run "$MPRUN" -n 1 --cpus-per-rank 2 --report-bindings "$CLIENT" affinity
    a0=$(sed -n 's/^rank 0 affinity \([^ ]*\) .*/\1/p' "$T/out")
    first=$(expand_list "$a0" | cut -d' ' -f1)
    want=$(intersect "$(core_of "$first")" "$allowed")
    second=$(expand_list "$a0" | tr ' ' '\n' | grep -v -x -F -f <(tr ' ' '\n' <<<"$want") | head -1)
    [ -n "$second" ] && want="$want $(intersect "$(core_of "$second")" "$allowed")"
    if [ $RC = 0 ] && grep -q '^rank 0 bound to cores ' "$T/err" &&
        [ "$(expand_list "$a0" | tr ' ' '\n' | sort -n | tr '\n' ' ')" = \
          "$(tr ' ' '\n' <<<"$want" | sort -n | tr '\n' ' ')" ]
    then pass cpus-per-rank-2
    else fail cpus-per-rank-2 "rc=$RC affinity '$a0' want '$want', report '$ERR'"; fi
else
    skip cpus-per-rank-2 "needs 2 usable cores"
fi

if [ -x "$PROBE" ]; then
    run "$MPRUN" -n $nb --report-bindings "$PROBE" affinity
    why=""
    for ((r = 0; r < nb; r++)); do
        aff=$(sed -n "s/^rank $r affinity //p" "$T/out")
        pus=$(sed -n "s/^rank $r bound to core [0-9]* \[PU \([^]]*\)\].*/\1/p" "$T/err")
        [ -n "$aff" ] && [ "$(expand_list "$aff")" = "$(expand_list "$pus")" ] ||
            why+=" rank $r: affinity '$aff' after MPI_Init, bound to '$pus';"
    done
    if [ $RC = 0 ] && [ -z "$why" ]; then pass bind-seen-by-mpi-program
    else fail bind-seen-by-mpi-program "rc=$RC$why stderr '$ERR'"; fi
else
    skip bind-seen-by-mpi-program "$PROBE not built (libmpi missing?)"
fi

# ---- oversubscription ----------------------------------------------------------------------------
# 8 ranks of the core job tests on this machine's cores must not crawl: blocking waits yield
# the CPU (the runtime reads mpr.oversubscribed). Each program does per-rank work, so 8 ranks
# on 2 cores ideally take about 4 times as long as 2; spinning ranks would take far longer.
t2=0 t8=0 why="" list=""
for j in $OVERSUB_JOBS; do
    prog=$builddir/$j
    [ -x "$prog" ] || make -C "$builddir" "$j" >/dev/null 2>&1
    [ -x "$prog" ] || continue
    run "$MPRUN" -n 2 "$prog"
    rc2=$RC ms2=$MS
    run "$MPRUN" -n 8 "$prog"
    [ $rc2 = 0 ] && [ $RC = 0 ] || why+=" ${j##*/}: rc $rc2 at 2 ranks, $RC at 8;"
    t2=$((t2 + ms2)) t8=$((t8 + MS))
    list+=" ${j##*/} $ms2/$MS ms;"
done
if [ -z "$list" ]; then
    skip oversubscribed-8-ranks "none of $OVERSUB_JOBS could be built"
else
    ratio=$(awk "BEGIN { printf \"%.2f\", $t8 / ($t2 > 0 ? $t2 : 1) }")
    echo "INFO oversubscribed: 2 ranks ${t2} ms, 8 ranks ${t8} ms in total, ratio $ratio" \
        "(2/8 ranks:$list cores $usable_cores)"
    if [ -z "$why" ] && awk "BEGIN { exit !($ratio <= 8) }"; then pass oversubscribed-8-ranks
    else fail oversubscribed-8-ranks "ratio $ratio (limit 8)$why"; fi
fi

