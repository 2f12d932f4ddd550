#!/usr/bin/env bash
# MPR's test command. Installs what is missing (Debian 12, root), builds, and runs every stage:
# unit tests, launcher tests, MPI jobs at several sizes and on each transport, failure behaviour,
# the compiler wrapper, an ASan+UBSan build of all of it, and the soft-RoCE VM suite.
# Prints one "PASS name" / "FAIL name: why" line per test (logs in <build>/test-logs/) and ends
# with "N passed, N failed[, N skipped]"; exits non-zero if anything failed. See test/README.md.
#
#   test/run-tests.sh [--quick] [--no-build] [--build-dir DIR] [--only REGEX]
#     --quick       skip the sanitizer build and the VM stage
#     --no-build    use the existing build dirs as they are (no apt, autoreconf, configure, make)
#     --build-dir   default <repo>/_build; the sanitizer build goes to DIR-asan
#     --only REGEX  run only the tests whose name matches (extended regex), e.g. 'job_probe'
# Environment (developer use):
#   MPR_TEST_LAUNCHER  launcher command taking "-n N prog args" (default <build>/launcher/mprun)
#   MPR_TEST_CC        compile the jobs and examples with this compiler instead of using the
#                      build's; with MPR_TEST_LAUNCHER this runs the job stages on another MPI
#                      (e.g. mpicc.openmpi + "mpirun.openmpi --allow-run-as-root --oversubscribe")
#   MPR_TEST_TIMEOUT   seconds allowed per launch (default 120; doubled under sanitizers)
#   MPR_TEST_RANKS     rank counts for the job stage (default "1 2 3 4 8")
set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
quick=0
do_build=1
build_dir=$top/_build
only=""
usage() { sed -n '8,21s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --no-build) do_build=0 ;;
    --build-dir) build_dir=${2:?--build-dir needs a directory}; shift ;;
    --build-dir=*) build_dir=${1#*=} ;;
    --only) only=${2:?--only needs a regex}; shift ;;
    --only=*) only=${1#*=} ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run-tests.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$build_dir" || exit 2
build_dir=$(cd "$build_dir" && pwd)
asan_dir=$build_dir-asan
logdir=$build_dir/test-logs
rm -rf "$logdir"
mkdir -p "$logdir"
t_start=$(date +%s)

# ---- reporting ----------------------------------------------------------------------------
npass=0
nfail=0
nskip=0
tail_lines=15

selected() { [ -z "$only" ] || [[ $1 =~ $only ]]; }
log_for() { printf '%s/%s.log' "$logdir" "$(printf '%s' "$1" | tr -c 'A-Za-z0-9._=-' '_')"; }
pass() { npass=$((npass + 1)); echo "PASS $1${2:+ ($2)}"; }
skip() { nskip=$((nskip + 1)); echo "SKIP $1: $2"; }
# fail NAME REASON [LOG]: the reason, then the end of the log, indented.
fail() {
  nfail=$((nfail + 1))
  echo "FAIL $1: $2"
  if [ -n "${3:-}" ] && [ -s "$3" ]; then
    tail -n "$tail_lines" "$3" | cut -c1-300 | sed 's/^/    | /'
    echo "    (full log: $3)"
  fi
}
# fail_build NAME REASON LOG: like fail, but shows the log's first error lines (with make -j2 -k
# the end of the log is rarely where the error is).
fail_build() {
  nfail=$((nfail + 1))
  echo "FAIL $1: $2"
  grep -m 12 -E 'error|Error [0-9]|undefined reference' "$3" | cut -c1-300 | sed 's/^/    | /'
  echo "    (full log: $3)"
}
stage() { echo "# $*"; }
elapsed_since() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'; }

# ---- packages and build --------------------------------------------------------------------
install_packages() {
  local log=$logdir/apt.log
  if [ -f "$top/test/packages.sh" ]; then
    # shellcheck source=test/packages.sh
    . "$top/test/packages.sh"
  else
    MPR_PACKAGES="build-essential autoconf automake libtool pkg-config libpmix-dev libhwloc-dev
      libibverbs-dev ibverbs-providers catch2"
    mpr_install_packages() {
      local missing="" p
      for p in $MPR_PACKAGES "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
          missing="$missing $p"
      done
      [ -z "$missing" ] && return 0
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -q && apt-get install -y -q --no-install-recommends $missing
    }
  fi
  command -v dpkg-query >/dev/null || { skip packages "not a Debian system"; return 0; }
  local missing="" p
  for p in $MPR_PACKAGES openmpi-bin; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" != 0 ]; then
    skip packages "missing$missing and not root; install them with apt-get"
    return 0
  fi
  local t0; t0=$(date +%s.%N)
  # openmpi-bin is only for comparison benchmarks; no test needs it.
  if mpr_install_packages openmpi-bin >"$log" 2>&1; then
    pass packages "installed$missing in $(elapsed_since "$t0") s"
  else
    fail packages "apt-get install$missing failed" "$log"
  fi
}

# build DIR NAME [configure options...]: configure (once) and make the library, programs and
# check programs. `make -k` builds everything it can, so one broken test program does not hide
# the results of all the others.
build() {
  local dir=$1 name=$2; shift 2
  local log; log=$(log_for "$name")
  local t0; t0=$(date +%s.%N)
  mkdir -p "$dir"
  if [ ! -f "$dir/Makefile" ]; then
    if ! (cd "$dir" && "$top/configure" -q "$@") >"$log" 2>&1; then
      fail_build "$name" "configure failed" "$log"
      return 1
    fi
  fi
  if ! make -C "$dir" -j2 >>"$log" 2>&1; then
    make -C "$dir" -k -j2 check TESTS= >>"$log" 2>&1
    fail_build "$name" "make failed" "$log"
    return 1
  fi
  if ! make -C "$dir" -k -j2 check TESTS= >>"$log" 2>&1; then
    fail_build "$name" "building the check programs failed" "$log"
    return 1
  fi
  pass "$name" "$(elapsed_since "$t0") s"
}

autoreconf_once() {
  [ -x "$top/configure" ] && return 0
  local log=$logdir/autoreconf.log
  if (cd "$top" && autoreconf -fi) >"$log" 2>&1; then
    pass autoreconf
  else
    fail autoreconf "autoreconf -fi failed" "$log"
    return 1
  fi
}

# ---- Catch2 unit tests ---------------------------------------------------------------------
# run_unit PREFIX BIN [env...]: one PASS/FAIL line per Catch2 test case, from its XML report.
run_unit() {
  local prefix=$1 bin=$2; shift 2
  local base; base=$(basename "$bin")
  local name=$prefix/$base
  selected "$name" || return 0
  local xml log rc
  log=$(log_for "$name")
  xml=${log%.log}.xml
  echo "+ $* $bin -r xml -o $xml" >"$log"
  (cd "$(dirname "$bin")" && env "$@" timeout -k 5 $((timeout * 3)) "$bin" -r xml -o "$xml") \
    </dev/null >>"$log" 2>&1
  rc=$?
  if [ ! -s "$xml" ]; then
    fail "$name" "did not run (exit $rc)" "$log"
    return
  fi
  local results; results=$(awk -f "$top/test/catch2-xml.awk" "$xml")
  local status tcname reason crashed="" ncases=0
  while IFS=$'\t' read -r status tcname reason; do
    [ -n "$status" ] || continue
    ncases=$((ncases + 1))
    case $status in
      PASS) pass "$name: $tcname" ;;
      FAIL) fail "$name: $tcname" "$reason" ;;
      INCOMPLETE) crashed=$tcname ;;
    esac
  done <<<"$results"
  if [ -n "$crashed" ]; then
    fail "$name: $crashed" "the binary died inside this test case (exit $rc); later test cases did not run" "$log"
  elif [ "$rc" -ne 0 ] && ! grep -q '^FAIL' <<<"$results"; then
    fail "$name" "exit $rc although every test case passed" "$log"
  elif [ "$ncases" -eq 0 ]; then
    fail "$name" "no test case ran" "$log"
  fi
}

unit_stage() {
  local dir=$1 prefix=$2; shift 2
  local bins
  bins=$(find "$dir/test/unit" -maxdepth 1 -type f -name 'mpr_unit_*' -perm -u+x 2>/dev/null | sort)
  if [ -z "$bins" ]; then
    skip "$prefix" "no test/unit/mpr_unit_* binary in $dir"
    return
  fi
  local b
  for b in $bins; do run_unit "$prefix" "$b" "$@"; done
}

# ---- scripts written by other stages' owners: count their PASS/FAIL/SKIP lines -------------
# run_counted NAME TIMEOUT SCRIPT [args...]
run_counted() {
  local name=$1 tmo=$2; shift 2
  selected "$name" || return 0
  local log; log=$(log_for "$name")
  local t0; t0=$(date +%s.%N)
  MPR_BUILD_DIR=$build_dir MPR_SRC_DIR=$top timeout -k 10 "$tmo" "$@" </dev/null >"$log" 2>&1
  local rc=$? line seen_fail=0 seen=0
  while IFS= read -r line; do
    case $line in
      "PASS "*) seen=$((seen + 1)); pass "$name/${line#PASS }" ;;
      "FAIL "*)
        seen=$((seen + 1)); seen_fail=1
        local rest=${line#FAIL }
        fail "$name/${rest%%:*}" "$( [[ $rest == *:* ]] && echo "${rest#*: }" || echo failed)" ;;
      "SKIP "*) local r=${line#SKIP }; skip "$name/${r%%:*}" "${r#*: }" ;;
    esac
  done <"$log"
  if [ "$rc" -ne 0 ] && [ "$seen_fail" -eq 0 ]; then
    fail "$name" "exit $rc after $(elapsed_since "$t0") s$([ "$rc" -ge 124 ] && echo ' (timeout?)')" "$log"
  elif [ "$seen" -eq 0 ] && [ "$rc" -eq 0 ]; then
    fail "$name" "printed no PASS/FAIL line" "$log"
  fi
}

# ---- MPI jobs ------------------------------------------------------------------------------
# Processes of BIN still alive (not zombies): a launcher must never leave ranks behind.
leftovers() {
  local pid
  for pid in $(pgrep -f -- "$1" 2>/dev/null); do
    [ "$pid" = "$$" ] && continue
    case $(ps -o stat= -p "$pid" 2>/dev/null) in Z*|"") ;; *) echo "$pid" ;; esac
  done
}
shm_entries() {
  local f
  for f in /dev/shm/mpr.*; do [ -e "$f" ] && echo "${f#/dev/shm/}"; done | sort
}

# launch NAME NRANKS BIN [args...]: runs under the launcher with $job_env; sets rc, log, took.
launch() {
  local name=$1 n=$2 bin=$3; shift 3
  log=$(log_for "$name")
  local t0; t0=$(date +%s.%N)
  echo "+ ${job_env[*]} ${launcher[*]} -n $n $bin $*" >"$log"
  (cd "$logdir" && env "${job_env[@]}" timeout -k 5 "$timeout" "${launcher[@]}" -n "$n" \
    "$bin" "$@") </dev/null >>"$log" 2>&1
  rc=$?
  took=$(elapsed_since "$t0")
}

# After a launch: no rank may outlive its job. Kills (by pid) and reports any that did.
check_leftovers() {
  local name=$1 bin=$2 pids
  pids=$(leftovers "$bin")
  [ -z "$pids" ] && return 0
  sleep 1
  pids=$(leftovers "$bin")
  [ -z "$pids" ] && return 0
  # shellcheck disable=SC2086
  kill -KILL $pids 2>/dev/null
  fail "$name: no processes left" "$(echo $pids | wc -w) process(es) of $(basename "$bin") still running after the launcher returned" "$log"
  return 1
}

# run_job NAME NRANKS BIN [args...]: the job must exit 0 and print its "OK" line.
run_job() {
  local name=$1 n=$2 bin=$3; shift 3
  selected "$name" || return 0
  if [ ! -x "$bin" ]; then
    if [ -n "${MPR_TEST_CC:-}" ]; then
      skip "$name" "does not build with $MPR_TEST_CC"
    else
      fail "$name" "not built: $bin"
    fi
    return
  fi
  launch "$name" "$n" "$bin" "$@"
  check_leftovers "$name" "$bin"
  if [ "$rc" -ne 0 ]; then
    local why="exit $rc after $took s"
    awk -v t="$took" -v m="$timeout" 'BEGIN { exit !(t >= m - 1) }' && why="timed out after $timeout s"
    # The first diagnostic says more than the end of the log (often a sanitizer's stack).
    local first
    first=$(grep -m1 -E '\] FAIL |runtime error:|ERROR: [A-Za-z]+Sanitizer|^mprun: ' "$log" | cut -c1-240)
    fail "$name" "$why${first:+; first error: $first}" "$log"
  elif [[ $bin != */examples/* ]] && ! grep -q '^OK ' "$log"; then
    fail "$name" "exit 0 but no OK line (did every rank get through?)" "$log"
  else
    pass "$name" "$took s"
  fi
}

# The job suite: program, rank counts it is meaningful at (from $ranks), arguments.
# %N in the arguments becomes the rank count.
job_table() {
  cat <<'EOF'
job_order          1+
job_any_source     1+
job_tag_order      1+
job_probe          1+
job_many_requests  1+
job_truncate       1+
job_self           1+
job_ssend          2+
job_arg_errors     1+
job_coll           1+
job_coll_reduce    1+
job_coll_move      1+
job_coll_nb        1+
job_p2p_misc       1+
job_env            1+   -n %N
job_dtype_p2p      1+
job_dtype_pack     1+
job_dtype_coll     1+
job_comm_basic     1+
job_comm_inter     1+
job_comm_attr      1+
job_topo_cart      1+
job_topo_neighbor  1+
job_p2p_modes      1+
job_rma_fence      1+
job_rma_atomic     1+
job_rma_accumulate 1+
job_rma_dtype      1+
job_rma_dynamic    1+
job_rma_pscw       1+
job_rma_passive    2+
job_rma_errors     1+
job_rma_shared     1+
EOF
}
example_table() {
  cat <<'EOF'
hello     1+
ring      1+   3
pi        1+   2000000
pingpong  2    -i 200 -m 4m
pingpong  3    -i 20 -m 64k
EOF
}

# job_suite PREFIX JOBDIR EXDIR "RANKS": every job and example at every meaningful size.
job_suite() {
  local prefix=$1 jobdir=$2 exdir=$3 sizes=$4 prog spec args n
  while read -r prog spec args; do
    [ -n "$prog" ] || continue
    for n in $sizes; do
      if [[ $spec == *+ ]]; then [ "$n" -ge "${spec%+}" ] || continue; else [ "$n" -eq "$spec" ] || continue; fi
      if [ "$prefix" = shm-nocma ] && [ "$prog" = job_rma_passive ]; then
        # Without cross-memory attach, MPI_Win_create memory is reached by active messages,
        # which need the target to call MPI: exactly what this job forbids (runtime/rma/README.md).
        selected "$prefix/$prog -n $n" && skip "$prefix/$prog -n $n" "needs cross-memory attach"
        continue
      fi
      # shellcheck disable=SC2086
      run_job "$prefix/$prog -n $n" "$n" "$jobdir/$prog" ${args//%N/$n}
    done
  done < <(job_table)
  while read -r prog spec args; do
    [ -n "$prog" ] || continue
    for n in $sizes; do
      if [[ $spec == *+ ]]; then [ "$n" -ge "${spec%+}" ] || continue; else [ "$n" -eq "$spec" ] || continue; fi
      # shellcheck disable=SC2086
      run_job "$prefix/examples/$prog -n $n" "$n" "$exdir/$prog" $args
    done
  done < <(example_table)
}

# Failure behaviour: how the launcher ends a job that goes wrong.
failure_checks() {
  local prefix=$1 jobdir=$2 exdir=$3 name bin
  name="$prefix/abort: MPI_Abort(7) ends the job with 7"
  bin=$jobdir/fail_abort
  if selected "$name"; then
    if [ -x "$bin" ]; then
      launch "$name" 4 "$bin"
      if check_leftovers "$name" "$bin"; then
        if [ "$rc" -ne 7 ]; then fail "$name" "exit $rc after $took s, expected 7" "$log"
        elif awk -v t="$took" 'BEGIN { exit !(t > 10) }'; then fail "$name" "took $took s (limit 10 s)" "$log"
        else pass "$name" "$took s"; fi
      fi
    else fail "$name" "not built: $bin"; fi
  fi

  name="$prefix/sigkill: a rank killed by SIGKILL ends the job with 137"
  bin=$jobdir/fail_sigkill
  if selected "$name"; then
    if [ -x "$bin" ]; then
      local shm_before shm_after new_shm killed_at ended lag
      shm_before=$(shm_entries)
      launch "$name" 4 "$bin"
      ended=$(date +%s.%N)
      if check_leftovers "$name" "$bin"; then
        shm_after=$(shm_entries)
        new_shm=$(comm -13 <(echo "$shm_before") <(echo "$shm_after") | grep . || true)
        killed_at=$(sed -n 's/.*raises SIGKILL at \([0-9.]*\).*/\1/p' "$log" | head -n1)
        lag=$(awk -v k="${killed_at:-0}" -v e="$ended" 'BEGIN { printf "%.1f", e - k }')
        if [ "$rc" -ne 137 ]; then fail "$name" "exit $rc after $took s, expected 137" "$log"
        elif [ -z "$killed_at" ]; then fail "$name" "the victim's 'raises SIGKILL' line is missing from the output" "$log"
        elif awk -v l="$lag" 'BEGIN { exit !(l > 5) }'; then fail "$name" "job ended $lag s after the kill (limit 5 s)" "$log"
        elif [ -n "$new_shm" ]; then
          fail "$name" "left /dev/shm entries: ${new_shm//$'\n'/ }" "$log"
          (cd /dev/shm && xargs rm -f <<<"$new_shm")
        else pass "$name" "ended $lag s after the kill"; fi
      fi
    else fail "$name" "not built: $bin"; fi
  fi

  name="$prefix/fatal: an argument error under ERRORS_ARE_FATAL names the call"
  bin=$jobdir/fail_fatal_arg
  if selected "$name"; then
    if [ -x "$bin" ]; then
      launch "$name" 2 "$bin"
      if check_leftovers "$name" "$bin"; then
        if [ "$rc" -eq 0 ]; then fail "$name" "exit 0; expected the job to fail" "$log"
        elif awk -v t="$took" -v m="$timeout" 'BEGIN { exit !(t >= m - 1) }'; then fail "$name" "timed out" "$log"
        elif ! grep -q 'MPI_Send' "$log"; then fail "$name" "exit $rc but no message naming MPI_Send" "$log"
        else pass "$name" "exit $rc, $took s"; fi
      fi
    else fail "$name" "not built: $bin"; fi
  fi

  # Singletons: started without any launcher, the program is a job of one rank.
  local prog
  for prog in job_env examples/hello examples/ring; do
    name="$prefix/singleton: ./${prog##*/} without a launcher"
    selected "$name" || continue
    case $prog in examples/*) bin=$exdir/${prog#examples/} ;; *) bin=$jobdir/$prog ;; esac
    [ -x "$bin" ] || { fail "$name" "not built: $bin"; continue; }
    log=$(log_for "$name")
    local t0 args=""
    t0=$(date +%s.%N)
    [ "$prog" = job_env ] && args="-n 1"
    echo "+ ${job_env[*]} $bin $args" >"$log"
    # shellcheck disable=SC2086
    (cd "$logdir" && env "${job_env[@]}" timeout -k 5 "$timeout" "$bin" $args) </dev/null >>"$log" 2>&1
    rc=$?
    took=$(elapsed_since "$t0")
    if [ "$rc" -ne 0 ]; then fail "$name" "exit $rc after $took s" "$log"
    elif [ "$prog" = job_env ] && ! grep -q '^OK job_env on 1 rank' "$log"; then fail "$name" "no 'OK job_env on 1 rank' line" "$log"
    else pass "$name" "$took s"; fi
  done
}

# Compile examples/hello.c with the build tree's compiler wrapper and run it on 2 ranks.
wrapper_check() {
  local name="wrappers: mpicc-build hello.c, run on 2 ranks"
  selected "$name" || return 0
  local cc=$build_dir/launcher/mpicc-build
  if [ ! -x "$cc" ]; then
    skip "$name" "no $cc"
    return
  fi
  local out=$logdir/hello-wrapped
  log=$(log_for "$name")
  if ! "$cc" -O2 -o "$out" "$top/examples/hello.c" >"$log" 2>&1; then
    fail "$name" "compiling with mpicc-build failed" "$log"
    return
  fi
  launch "$name" 2 "$out"
  check_leftovers "$name" "$out"
  if [ "$rc" -ne 0 ]; then fail "$name" "exit $rc" "$log"
  elif [ "$(grep -c '^Hello from rank' "$log")" -ne 2 ]; then fail "$name" "expected 2 'Hello from rank' lines" "$log"
  else pass "$name" "$took s"; fi
}

# ---- reference mode: the job programs built with another MPI's compiler --------------------
build_reference() {
  local out=$build_dir/test-ref
  local log=$logdir/reference-build.log f bad=""
  mkdir -p "$out/test/jobs" "$out/examples"
  rm -f "$out"/test/jobs/* "$out"/examples/*
  for f in "$top"/test/jobs/*.c "$top"/examples/*.c; do
    local dest=$out/test/jobs
    [[ $f == */examples/* ]] && dest=$out/examples
    echo "+ $MPR_TEST_CC $f" >>"$log"
    $MPR_TEST_CC -O2 -Wall -Wextra -Werror -I"$top/test/jobs" -o "$dest/$(basename "$f" .c)" "$f" -lm \
      >>"$log" 2>&1 || bad="$bad $(basename "$f" .c)"
  done
  # A job using what the other MPI lacks is skipped there, not failed (see run_job).
  [ -n "$bad" ] && echo "# not built with $MPR_TEST_CC (skipped):$bad (log: $log)"
  pass "reference build with $MPR_TEST_CC"
}

# ---- main ----------------------------------------------------------------------------------
timeout=${MPR_TEST_TIMEOUT:-120}
ranks=${MPR_TEST_RANKS:-1 2 3 4 8}
if [ -n "${MPR_TEST_LAUNCHER:-}" ]; then
  read -r -a launcher <<<"$MPR_TEST_LAUNCHER"
else
  launcher=("$build_dir/launcher/mprun")
fi
job_env=(MPR_TEST_RUN=1)
# Open MPI, when used as the reference, has known deviations the jobs tolerate (see job_truncate.c).
[[ ${launcher[*]} == *openmpi* || ${launcher[*]} == *orterun* ]] && job_env+=(JOBS_REFERENCE_OPENMPI=1)
[[ ${launcher[*]} == *mpich* || ${launcher[*]} == *hydra* ]] && job_env+=(JOBS_REFERENCE_MPICH=1)

if [ -n "${MPR_TEST_CC:-}" ]; then
  stage "reference mode: jobs built with $MPR_TEST_CC, launched with ${launcher[*]}"
  build_reference
  job_suite jobs "$build_dir/test-ref/test/jobs" "$build_dir/test-ref/examples" "$ranks"
  failure_checks jobs "$build_dir/test-ref/test/jobs" "$build_dir/test-ref/examples"
else
  if [ "$do_build" = 1 ]; then
    stage "packages and build ($build_dir)"
    install_packages
    autoreconf_once && build "$build_dir" build
  fi
  if [ -z "${MPR_TEST_LAUNCHER:-}" ] && [ ! -x "${launcher[0]}" ]; then
    fail "launcher" "${launcher[0]} was not built; every job test needs it"
  fi

  stage "unit tests"
  unit_stage "$build_dir" unit

  stage "launcher tests"
  if [ -f "$top/test/launcher/run-launcher-tests.sh" ]; then
    run_counted launcher $((timeout * 5)) bash "$top/test/launcher/run-launcher-tests.sh" "$build_dir"
  else
    skip launcher "test/launcher/run-launcher-tests.sh not present"
  fi

  stage "MPI jobs at ${ranks// /, } ranks"
  shm_at_start=$(shm_entries)
  job_suite jobs "$build_dir/test/jobs" "$build_dir/examples" "$ranks"

  stage "failure behaviour"
  failure_checks jobs "$build_dir/test/jobs" "$build_dir/examples"

  stage "transports: shm only, and shm without cross-memory attach (copy pipeline), 2 ranks"
  saved_env=("${job_env[@]}")
  # Point-to-point rendezvous reads with cross-memory attach from every size here (by default
  # only from MPR_SHM_CMA_MIN), so that path stays tested.
  job_env=("${saved_env[@]}" "MPR_BTL=self,shm" MPR_SHM_CMA_MIN=0)
  job_suite shm "$build_dir/test/jobs" "$build_dir/examples" 2
  job_env=("${saved_env[@]}" "MPR_BTL=self,shm" MPR_SHM_CMA=0)
  job_suite shm-nocma "$build_dir/test/jobs" "$build_dir/examples" 2
  # A tiny eager limit moves the eager/rendezvous boundary under the ordering tests.
  job_env=("${saved_env[@]}" "MPR_BTL=self,shm" MPR_SHM_EAGER_LIMIT=64)
  for prog in job_order job_any_source job_tag_order job_probe job_truncate job_ssend; do
    run_job "shm-eager64/$prog -n 2" 2 "$build_dir/test/jobs/$prog"
  done
  # One-sided jobs on the other control and data paths (runtime/rma/README.md): no node-wide
  # mapping (active-message control words, cross-memory-attach data), and active messages only.
  for path in btl am; do
    job_env=("${saved_env[@]}" "MPR_RMA_PATH=$path")
    while read -r prog _; do
      [[ $prog == job_rma_* ]] || continue
      [ "$prog" = job_rma_passive ] && continue  # these paths need the target to call MPI
      run_job "rma-$path/$prog -n 4" 4 "$build_dir/test/jobs/$prog"
    done < <(job_table)
  done
  job_env=("${saved_env[@]}")

  name="jobs: no /dev/shm/mpr.* left behind"
  if selected "$name"; then
    new_shm=$(comm -13 <(echo "$shm_at_start") <(shm_entries) | grep . || true)
    if [ -n "$new_shm" ]; then
      fail "$name" "${new_shm//$'\n'/ }"
    else
      pass "$name"
    fi
  fi

  stage "compiler wrapper"
  wrapper_check

  if [ "$quick" = 1 ]; then
    skip "asan" "--quick"
    skip "rdma-vm" "--quick"
  else
    stage "ASan + UBSan build ($asan_dir)"
    asan_ok=1
    if [ "$do_build" = 1 ]; then
      build "$asan_dir" build-asan --enable-sanitizers || asan_ok=0
    elif [ ! -f "$asan_dir/Makefile" ]; then
      skip asan "--no-build and no $asan_dir"
      asan_ok=0
    fi
    if [ "$asan_ok" = 1 ] || [ -x "$asan_dir/launcher/mprun" ]; then
      saved_env=("${job_env[@]}")
      saved_launcher=("${launcher[@]}")
      saved_timeout=$timeout
      # detect_leaks: see test/lsan.supp for what is suppressed and why.
      job_env=("${saved_env[@]}"
        "ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=0"
        "LSAN_OPTIONS=suppressions=$top/test/lsan.supp:print_suppressions=0"
        "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
      [ -z "${MPR_TEST_LAUNCHER:-}" ] && launcher=("$asan_dir/launcher/mprun")
      timeout=$((timeout * 2))
      unit_stage "$asan_dir" asan/unit "${job_env[@]}"
      job_suite asan/jobs "$asan_dir/test/jobs" "$asan_dir/examples" "1 2 4"
      failure_checks asan/jobs "$asan_dir/test/jobs" "$asan_dir/examples"
      job_env=("${saved_env[@]}")
      launcher=("${saved_launcher[@]}")
      timeout=$saved_timeout
    fi

    stage "verbs over soft-RoCE in a VM"
    vm=$top/test/rdma-vm/run-verbs-suite.sh
    if [ -x "$vm" ]; then
      # 2 and 4 ranks, as the verbs backend must show; under TCG every job is 10-100x slower, so
      # this stage takes 8-17 minutes depending on the host's load.
      run_counted rdma-vm 2400 "$vm" "$build_dir" -n "2 4"
    else
      skip rdma-vm "test/rdma-vm/run-verbs-suite.sh not present"
    fi
  fi
fi

if [ $((npass + nfail)) -eq 0 ]; then
  fail suite "no test ran"
fi
echo "# total time $(( $(date +%s) - t_start )) s; logs in $logdir"
if [ "$nskip" -gt 0 ]; then
  echo "$npass passed, $nfail failed, $nskip skipped"
else
  echo "$npass passed, $nfail failed"
fi
[ "$nfail" -eq 0 ]
