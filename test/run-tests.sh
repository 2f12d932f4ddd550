#!/usr/bin/env bash
# MPR's test command. Installs what is missing (Debian 12, root), builds, and runs every stage:
# unit tests, launcher tests, MPI jobs at several sizes and on each transport, failure behaviour,
# the compiler wrapper, build systems finding an installed MPR, an ASan+UBSan build of all of
# it, and the soft-RoCE VM suite.
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
# The jobs, their rank counts, arguments and expected ends are in test/jobs/manifest; running,
# time limits and the PASS/FAIL/SKIP lines come from test/lib/harness.sh.
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
# shellcheck source=test/lib/harness.sh
. "$top/test/lib/harness.sh"
h_only=$only
h_logdir=$build_dir/test-logs
logdir=$h_logdir
# For the scripts whose lines relay_counted counts (the launcher checks, the VM suite).
export MPR_BUILD_DIR=$build_dir MPR_SRC_DIR=$top
rm -rf "$logdir"
mkdir -p "$logdir"
t_start=$(date +%s)

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
# unit_stage DIR PREFIX [env...]: every test/unit/mpr_unit_* binary of build DIR (run_unit).
unit_stage() {
  local dir=$1 prefix=$2; shift 2
  local bins
  bins=$(find "$dir/test/unit" -maxdepth 1 -type f -name 'mpr_unit_*' -perm -u+x 2>/dev/null | sort)
  if [ -z "$bins" ]; then
    skip "$prefix" "no test/unit/mpr_unit_* binary in $dir"
    return
  fi
  local b
  for b in $bins; do run_unit "$prefix" "$b" $((timeout * 3)) "$@"; done
}

# Failure behaviour: how the launcher ends a job that goes wrong. Rank counts, expected ends and
# time limits are the manifest's (stage "failure"); ROOT is the build tree.
failure_checks() {
  local prefix=$1 root=$2 name
  manifest_lookup fail_abort || { fail "$prefix/abort" "fail_abort is not in the manifest"; return; }
  m_name="$prefix/abort: MPI_Abort(${m_end#exit=}) ends the job with ${m_end#exit=}"
  run_entry "$m_name" "$m_ranks" "$root"

  manifest_lookup fail_sigkill || { fail "$prefix/sigkill" "fail_sigkill is not in the manifest"; return; }
  name="$prefix/sigkill: a rank killed by SIGKILL ends the job with ${m_end#exit=}"
  local bin=$root/$m_prog
  if selected "$name"; then
    if [ -x "$bin" ]; then
      local shm_before shm_after new_shm killed_at ended lag
      shm_before=$(shm_entries)
      launch "$name" "$m_ranks" "$(entry_limit)" "$bin"
      ended=$(now)
      if check_leftovers "$name" "$bin"; then
        shm_after=$(shm_entries)
        new_shm=$(comm -13 <(echo "$shm_before") <(echo "$shm_after") | grep . || true)
        killed_at=$(sed -n 's/.*raises SIGKILL at \([0-9.]*\).*/\1/p' "$log" | head -n1)
        lag=$(awk -v k="${killed_at:-0}" -v e="$ended" 'BEGIN { printf "%.1f", e - k }')
        if [ "$rc" -ne "${m_end#exit=}" ]; then fail "$name" "exit $rc after $took s, expected ${m_end#exit=}" "$log"
        elif [ -z "$killed_at" ]; then fail "$name" "the victim's 'raises SIGKILL' line is missing from the output" "$log"
        elif awk -v l="$lag" 'BEGIN { exit !(l > 5) }'; then fail "$name" "job ended $lag s after the kill (limit 5 s)" "$log"
        elif [ -n "$new_shm" ]; then
          fail "$name" "left /dev/shm entries: ${new_shm//$'\n'/ }" "$log"
          (cd /dev/shm && xargs rm -f <<<"$new_shm")
        else pass "$name" "ended $lag s after the kill"; fi
      fi
    else fail "$name" "not built: $bin"; fi
  fi

  manifest_lookup fail_fatal_arg || { fail "$prefix/fatal" "fail_fatal_arg is not in the manifest"; return; }
  run_entry "$prefix/fatal: an argument error under ERRORS_ARE_FATAL names the call" "$m_ranks" "$root"

  manifest_lookup fail_spawn_crash || { fail "$prefix/spawn-crash" "fail_spawn_crash is not in the manifest"; return; }
  run_entry "$prefix/spawn-crash: a spawned process killed by SIGKILL ends the job, named" "$m_ranks" "$root"

  # Singletons: started without any launcher, the program is a job of one rank.
  local line
  while IFS= read -r line; do
    read -r m_name m_prog m_ranks m_end m_limit m_stages m_env m_args <<<"$line"
    run_entry "$prefix/singleton: ./${m_prog##*/} without a launcher" 0 "$root"
  done < <(manifest_entries singleton)
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
  launch "$name" 2 "$timeout" "$out"
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
  # A job using what the other MPI lacks is skipped there, not failed (see run_entry in test/lib/harness.sh).
  [ -n "$bad" ] && echo "# not built with $MPR_TEST_CC (skipped):$bad (log: $log)"
  pass "reference build with $MPR_TEST_CC"
}

# tcp_rogue_check: a 2-rank job over tcp; while it waits, garbage and a forged handshake go to
# the listening port rank 0 printed (MPR_VERBOSE). The job's results must be right, rank 0 must
# count both refusals (MPR_STATS) and log only the first.
tcp_rogue_check() {
  local name="tcp/rogue: garbage and a forged handshake change nothing and are logged once"
  selected "$name" || return 0
  local bin=$build_dir/test/jobs/job_tcp_rogue log=$logdir/tcp_rogue.log go=$logdir/tcp_rogue.go
  rm -f "$go"
  [ -x "$bin" ] || { fail "$name" "$bin was not built"; return; }
  env "${job_env[@]}" MPR_BTL=self,tcp MPR_VERBOSE=1 MPR_STATS=1 JOB_TCP_ROGUE_GO="$go" \
    timeout -k 5 90 "${launcher[@]}" -n 2 "$bin" >"$log" 2>&1 &
  local pid=$! i ep=""
  for i in $(seq 600); do
    grep -q 'job_tcp_rogue: ready' "$log" 2>/dev/null && break
    sleep 0.1
  done
  ep=$(grep -o 'tcp: listening on [0-9.]*:[0-9]*' "$log" | head -n 1 | sed 's/.* on //')
  if [ -z "$ep" ]; then
    touch "$go"
    wait "$pid"
    fail "$name" "no 'tcp: listening on' line in the verbose output" "$log"
    return
  fi
  local host=${ep%:*} port=${ep##*:}
  # Garbage: an HTTP request, shorter than a handshake, then the end of the stream.
  (printf 'GET / HTTP/1.0\r\n\r\n' >"/dev/tcp/$host/$port") 2>/dev/null
  # A forged handshake: the right magic and version, ranks 1 -> 0, no job hash, no secret.
  (exec 3<>"/dev/tcp/$host/$port" &&
    printf '\x54\x52\x50\x4d\x01\x00\x00\x00' >&3 &&
    printf '\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00' >&3 &&
    printf '\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' >&3 &&
    sleep 1) 2>/dev/null
  touch "$go"
  wait "$pid"
  local rc=$? logged
  logged=$(grep -c 'refused a connection' "$log")
  if [ $rc -ne 0 ] || ! grep -q '^OK job_tcp_rogue' "$log"; then
    fail "$name" "the job failed (exit $rc)" "$log"
  elif [ "$logged" -ne 1 ]; then
    fail "$name" "$logged 'refused a connection' lines, expected 1" "$log"
  elif ! grep -q '2 refused' "$log"; then
    fail "$name" "MPR_STATS does not count 2 refused connections" "$log"
  else
    pass "$name"
  fi
  rm -f "$go"
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
  manifest_suite jobs jobs "$build_dir/test-ref" "$ranks"
  failure_checks jobs "$build_dir/test-ref"
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
    relay_counted launcher $((timeout * 5)) bash "$top/test/launcher/run-launcher-tests.sh" "$build_dir"
  else
    skip launcher "test/launcher/run-launcher-tests.sh not present"
  fi

  stage "MPI jobs at ${ranks// /, } ranks"
  shm_at_start=$(shm_entries)
  manifest_suite jobs jobs "$build_dir" "$ranks"

  stage "failure behaviour"
  failure_checks jobs "$build_dir"

  stage "transports: shm only, and shm without cross-memory attach (copy pipeline), 2 ranks"
  saved_env=("${job_env[@]}")
  # Point-to-point rendezvous reads with cross-memory attach from every size here (by default
  # only from MPR_SHM_CMA_MIN), so that path stays tested.
  job_env=("${saved_env[@]}" "MPR_BTL=self,shm" MPR_SHM_CMA_MIN=0)
  manifest_suite shm shm "$build_dir" 2
  job_env=("${saved_env[@]}" "MPR_BTL=self,shm" MPR_SHM_CMA=0)
  manifest_suite shm-nocma shm-nocma "$build_dir" 2
  # A tiny eager limit moves the eager/rendezvous boundary under the ordering tests.
  job_env=("${saved_env[@]}" "MPR_BTL=self,shm" MPR_SHM_EAGER_LIMIT=64)
  manifest_suite shm-eager64 shm-eager64 "$build_dir" 2
  # One-sided jobs on the other control and data paths (runtime/rma/README.md): no node-wide
  # mapping (active-message control words, cross-memory-attach data), and active messages only.
  for path in btl am; do
    job_env=("${saved_env[@]}" "MPR_RMA_PATH=$path")
    manifest_suite "rma-$path" rma-paths "$build_dir" 4
  done
  job_env=("${saved_env[@]}")

  stage "tcp backend on one node: MPR_BTL=self,tcp at 2 and 4 ranks"
  job_env=("${saved_env[@]}" "MPR_BTL=self,tcp")
  manifest_suite tcp tcp "$build_dir" "2 4"
  job_env=("${saved_env[@]}")
  tcp_rogue_check

  stage "2-node Slurm cluster in network namespaces: mprun in allocations, jobs across nodes"
  if [ -z "${MPR_TEST_LAUNCHER:-}" ]; then
    relay_counted cluster 1800 "$top/test/slurm/run-cluster-stages.sh" "$build_dir"
  else
    skip cluster "MPR_TEST_LAUNCHER is set (the cluster stage runs MPR's own launchers)"
  fi

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

  stage "build systems: CMake, Autotools, Meson, pkg-config against a staged install; man pages"
  if [ -z "${MPR_TEST_LAUNCHER:-}" ]; then
    relay_counted build-discovery 900 bash "$top/test/launcher/build-discovery.sh" "$build_dir"
  else
    skip build-discovery "MPR_TEST_LAUNCHER is set (the checks install and run MPR's own build)"
  fi

  if [ "$quick" = 1 ]; then
    skip "asan" "--quick"
    skip "rdma-vm" "--quick"
    skip "rdma-vm-cluster" "--quick"
  else
    stage "ASan + UBSan build ($asan_dir)"
    asan_ok=1
    if [ "$do_build" = 1 ]; then
      # -O1 -g1: what ASan's documentation advises (file:line in every report), and it
      # compiles in about half the time of the default -O2 -g under the sanitizers.
      build "$asan_dir" build-asan --enable-sanitizers CFLAGS="-O1 -g1" CXXFLAGS="-O1 -g1" ||
        asan_ok=0
    elif [ ! -f "$asan_dir/Makefile" ]; then
      skip asan "--no-build and no $asan_dir"
      asan_ok=0
    fi
    if [ "$asan_ok" = 1 ] || [ -x "$asan_dir/launcher/mprun" ]; then
      saved_env=("${job_env[@]}")
      saved_launcher=("${launcher[@]}")
      saved_timeout=$timeout
      saved_scale=$h_limit_scale
      # detect_leaks: see test/lsan.supp for what is suppressed and why.
      job_env=("${saved_env[@]}"
        "ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=0"
        "LSAN_OPTIONS=suppressions=$top/test/lsan.supp:print_suppressions=0"
        "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
      [ -z "${MPR_TEST_LAUNCHER:-}" ] && launcher=("$asan_dir/launcher/mprun")
      timeout=$((timeout * 2))
      h_limit_scale=2
      unit_stage "$asan_dir" asan/unit "${job_env[@]}"
      manifest_suite asan/jobs asan "$asan_dir" "1 2 4"
      failure_checks asan/jobs "$asan_dir"
      job_env=("${saved_env[@]}")
      launcher=("${saved_launcher[@]}")
      timeout=$saved_timeout
      h_limit_scale=$saved_scale
    fi

    stage "verbs over soft-RoCE in a VM"
    vm=$top/test/rdma-vm/run-verbs-suite.sh
    if [ -x "$vm" ]; then
      # 2 ranks, and 4 for the manifest's rdma-vm4 entries (the jobs whose patterns change with
      # the rank count): under TCG every job is 10-100x slower, and this choice keeps the stage
      # to a few minutes.
      relay_counted rdma-vm 2400 "$vm" "$build_dir" -n "2 4"
    else
      skip rdma-vm "test/rdma-vm/run-verbs-suite.sh not present"
    fi

    stage "verbs between two soft-RoCE hosts (2 VMs, Slurm)"
    vmc=$top/test/rdma-vm/run-verbs-cluster-suite.sh
    if [ -x "$vmc" ]; then
      relay_counted rdma-vm-cluster 1800 "$vmc" "$build_dir"
    else
      skip rdma-vm-cluster "test/rdma-vm/run-verbs-cluster-suite.sh not present"
    fi
  fi
fi

if [ $((h_pass + h_fail)) -eq 0 ]; then
  fail suite "no test ran"
fi
echo "# total time $(( $(date +%s) - t_start )) s; logs in $logdir"
summary
