#!/usr/bin/env bash
# run-verbs-suite.sh - MPR's verbs backend on a real verbs stack: boots ONE soft-RoCE VM
# (run-in-rdma-vm.sh) over the build tree and runs inside it
#   1. test/verbs/mpr_verbs_tests, the [verbs] Catch2 tests (two backends in one process)
#   2. the MPI job suite forced onto verbs (MPR_BTL=self,verbs) at 2 and 4 ranks under the
#      build's mprun, plus the examples (pingpong's numbers are echoed as "# ..." lines)
#
# Usage: test/rdma-vm/run-verbs-suite.sh [BUILD_DIR] [options]
#   BUILD_DIR      configured and built tree (default $MPR_BUILD_DIR, else $PWD)
#   -t SECS        time limit for the VM (default 1700: everything runs in this one boot)
#   -m MB          guest memory (default 3072; the guest has no swap and ranks pin memory)
#   -n "2 4"       rank counts for the job stage
#   --jobs FILE    job table, one "program min-ranks[+] [args...]" per line (%N = rank count);
#                  default: the "rdma-vm" entries of test/jobs/manifest, else every test/jobs/job_*
#   --no-jobs      only the Catch2 tests
#   -k             keep the VM's run directory (guest console log)
# Output: one "PASS name" / "FAIL name: why" line per test; "SKIP verbs: why" and exit 0 only
# when the VM cannot be had for environmental reasons (not root, no qemu and no apt, no verbs
# in this build). Exit 1 if anything failed. Logs: BUILD_DIR/test-logs/rdma-vm/.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=${MPR_SRC_DIR:-$(cd "$here/../.." && pwd)}
build=${MPR_BUILD_DIR:-$PWD}
vm_timeout=1700
vm_mem=3072
ranks="2 4"
jobs_file=""
run_jobs=1
keep=()
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then build=$1; shift; fi
while [ $# -gt 0 ]; do
  case $1 in
    -t) vm_timeout=${2:?}; shift ;;
    -m) vm_mem=${2:?}; shift ;;
    -n) ranks=${2:?}; shift ;;
    --jobs) jobs_file=${2:?}; shift ;;
    --no-jobs) run_jobs=0 ;;
    -k) keep=(-k) ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-verbs-suite: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
build=$(cd "$build" 2>/dev/null && pwd -P) || { echo "FAIL verbs: no build directory $build"; exit 1; }
logs=$build/test-logs/rdma-vm
mkdir -p "$logs"
t0=$(date +%s)

skip_all() { echo "SKIP verbs: $*"; exit 0; }

# ---- what this build has ---------------------------------------------------------------------
if ! grep -q '^#define MPR_HAVE_VERBS 1' "$build/mpr_config.h" 2>/dev/null; then
  [ -f "$build/mpr_config.h" ] || { echo "FAIL verbs: $build is not a configured MPR build"; exit 1; }
  skip_all "this build has no verbs backend (configure found no libibverbs)"
fi
bin=$build/test/verbs/mpr_verbs_tests
if [ ! -x "$bin" ]; then
  make -C "$build" -j2 test/verbs/mpr_verbs_tests >"$logs/make.log" 2>&1 ||
    { echo "FAIL verbs-build: make test/verbs/mpr_verbs_tests failed (see $logs/make.log)"; exit 1; }
fi
[ "$(id -u)" = 0 ] || skip_all "the VM needs root (apt-get, qemu's 9p export of /usr); run as root"

# ---- the VM's cache: packages, kernel, initramfs (first time ~70 MB of downloads) ------------
vm=$here/run-in-rdma-vm.sh
if ! "$vm" --setup-only >"$logs/setup.log" 2>&1; then
  if ! command -v qemu-system-x86_64 >/dev/null; then
    skip_all "qemu-system-x86_64 is not installed and apt-get could not install it ($(tail -n1 "$logs/setup.log"))"
  fi
  if ! ls /var/tmp/rdma-vm/kernel/*/.done >/dev/null 2>&1 && ! apt-get download --print-uris linux-image-amd64 >/dev/null 2>&1; then
    skip_all "no cached guest kernel and apt cannot download one ($(tail -n1 "$logs/setup.log"))"
  fi
  echo "FAIL verbs-vm-setup: $(tail -n1 "$logs/setup.log") (log: $logs/setup.log)"
  exit 1
fi

# ---- the job table ---------------------------------------------------------------------------
# shellcheck source=test/rdma-vm/job-table.sh
. "$here/job-table.sh"
ctl=$build/.rdma-vm-suite
rm -rf "$ctl"
mkdir -p "$ctl"
if [ "$run_jobs" = 1 ]; then
  if [ -n "$jobs_file" ]; then
    cp "$jobs_file" "$ctl/jobs"
  elif [ -f "$src/test/jobs/manifest" ]; then
    # The manifest's "rdma-vm" entries, so this suite and the main one cover the same jobs
    # (with sizes for a TCG guest; see the manifest).
    manifest_table rdma-vm test/jobs/ rdma-vm4 >"$ctl/jobs"
  else
    for j in "$build"/test/jobs/job_*; do
      [ -x "$j" ] && [ -f "$j" ] && echo "$(basename "$j") 1+"
    done >"$ctl/jobs"
  fi
  if [ -z "$jobs_file" ] && [ -f "$src/test/jobs/manifest" ]; then
    manifest_table rdma-vm examples/ rdma-vm4 >"$ctl/examples"
  else
    # Examples, with sizes that suit a TCG guest (~20-40 MB/s, busy-polling ranks share 2 vCPUs).
    cat >"$ctl/examples" <<'EOF'
hello     1+
ring      2+   3
pi        2+   200000
pingpong  2    -i 200 -m 1m
EOF
  fi
else
  : >"$ctl/jobs"
  : >"$ctl/examples"
fi
cp "$here/verbs-suite-guest.sh" "$ctl/guest.sh"

# ---- one boot for everything -----------------------------------------------------------------
echo "# rdma-vm: booting the soft-RoCE VM (limit ${vm_timeout}s); logs in $logs"
"$vm" "${keep[@]}" -t "$vm_timeout" -m "$vm_mem" -s "$build" \
  -e "SUITE_BUILD=$build" -e "SUITE_LOGS=$logs" -e "SUITE_CTL=$ctl" -e "SUITE_RANKS=$ranks" \
  -- bash "$ctl/guest.sh" 2>"$logs/vm.log"
rc=$?
timing=$(sed -n 's/^\[rdma-vm\] command exit code [0-9]*; \(.*\)$/\1/p' "$logs/vm.log" | tail -n1)
case $rc in
  0|1) ;;
  124) echo "FAIL verbs-vm: the VM hit its ${vm_timeout}s time limit (log: $logs/vm.log)" ;;
  125) echo "FAIL verbs-vm: the VM or its RDMA setup failed before the tests ran: $(grep -m1 'ERROR\|setup error' "$logs/vm.log" | cut -c1-200) (log: $logs/vm.log)" ;;
  130) echo "FAIL verbs-vm: interrupted" ;;
  *) echo "FAIL verbs-vm: the suite ended with exit code $rc (log: $logs/vm.log)" ;;
esac
echo "# rdma-vm: ${timing:-no timing} ; suite wall $(( $(date +%s) - t0 )) s"
rm -rf "$ctl"
[ "$rc" = 0 ]
