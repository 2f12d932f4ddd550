#!/usr/bin/env bash
# run-verbs-cluster-suite.sh - MPR's verbs backend between two hosts: boots the two-VM soft-RoCE
# cluster (run-in-vm-cluster.sh) over the build tree and runs on it, with ranks started by
# Slurm (srun --mpi=pmix):
#   1. the cluster's self-test: srun on both nodes, ibv_rc_pingpong n1 <-> n2
#   2. which backend each peer gets (2 ranks per host: shm within, verbs across)
#   3. the job suite: 2 ranks (one per host, MPR_BTL=self,verbs) and 4 ranks (two per host,
#      backends chosen per peer), and mprun inside a 2-node allocation
#   4. a rank on n2 killed by SIGKILL while the ranks on n1 wait on it: the job must end
#      non-zero within 10 s, a line naming the rank and its host
#   5. examples/pingpong across the hosts ("# ..." lines: functional numbers, not speed claims)
#
# Usage: test/rdma-vm/run-verbs-cluster-suite.sh [BUILD_DIR] [options]
#   -t SECS        time limit for the cluster (default 1500: everything runs in one boot)
#   -n "2 4"       rank counts for the job suite
#   --jobs FILE    job table, one "program ranks[+] [args...]" per line (%N = rank count);
#                  default: the manifest's "rdma-cluster" entries (4 ranks only for those also
#                  tagged "rdma-cluster4")
#   -k             keep the cluster directory (Slurm, munge and VM logs)
# Output: one "PASS name" / "FAIL name: why" line per test; "SKIP verbs-cluster: why" and exit 0
# only for environmental reasons (not root, no qemu and no apt, no verbs in this build).
# Logs: BUILD_DIR/test-logs/rdma-vm-cluster/.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=${MPR_SRC_DIR:-$(cd "$here/../.." && pwd)}
build=${MPR_BUILD_DIR:-$PWD}
limit=1500
ranks="2 4"
jobs_file=""
keep=()
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then build=$1; shift; fi
while [ $# -gt 0 ]; do
  case $1 in
    -t) limit=${2:?}; shift ;;
    -n) ranks=${2:?}; shift ;;
    --jobs) jobs_file=${2:?}; shift ;;
    -k) keep=(-k) ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-verbs-cluster-suite: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
build=$(cd "$build" 2>/dev/null && pwd -P) || { echo "FAIL verbs-cluster: no build directory $build"; exit 1; }
logs=$build/test-logs/rdma-vm-cluster
rm -rf "$logs"
mkdir -p "$logs"
t0=$(date +%s)
skip_all() { echo "SKIP verbs-cluster: $*"; exit 0; }

if ! grep -q '^#define MPR_HAVE_VERBS 1' "$build/mpr_config.h" 2>/dev/null; then
  [ -f "$build/mpr_config.h" ] || { echo "FAIL verbs-cluster: $build is not a configured MPR build"; exit 1; }
  skip_all "this build has no verbs backend (configure found no libibverbs)"
fi
[ "$(id -u)" = 0 ] || skip_all "the VMs need root (apt-get, qemu's 9p export of /usr); run as root"
if ! "$here/run-in-rdma-vm.sh" --setup-only >"$logs/setup.log" 2>&1; then
  command -v qemu-system-x86_64 >/dev/null ||
    skip_all "qemu-system-x86_64 is not installed and apt-get could not install it ($(tail -n1 "$logs/setup.log"))"
  echo "FAIL verbs-cluster-setup: $(tail -n1 "$logs/setup.log") (log: $logs/setup.log)"
  exit 1
fi

# shellcheck source=test/rdma-vm/job-table.sh
. "$here/job-table.sh"
ctl=$build/.rdma-vm-cluster-suite
rm -rf "$ctl"
mkdir -p "$ctl"
if [ -n "$jobs_file" ]; then
  cp "$jobs_file" "$ctl/jobs"
else
  manifest_table rdma-cluster test/jobs/ rdma-cluster4 >"$ctl/jobs"
fi
manifest_table rdma-cluster examples/ rdma-cluster4 >"$ctl/examples"
cp "$here/verbs-cluster-guest.sh" "$ctl/guest.sh"
cp "$here/vm-cluster-selftest.sh" "$ctl/selftest.sh"

echo "# rdma-vm-cluster: booting the two soft-RoCE hosts (limit ${limit}s); logs in $logs"
"$here/run-in-vm-cluster.sh" "${keep[@]}" -c 1 -t "$limit" -s "$build" \
  -e "SUITE_BUILD=$build" -e "SUITE_LOGS=$logs" -e "SUITE_CTL=$ctl" -e "SUITE_RANKS=$ranks" \
  -- bash "$ctl/guest.sh" 2>"$logs/cluster.log"
rc=$?
case $rc in
  0|1) ;;
  124) echo "FAIL verbs-cluster: the cluster hit its ${limit}s time limit (log: $logs/cluster.log)" ;;
  125) echo "FAIL verbs-cluster: the cluster did not come up: $(grep -m1 'ERROR\|did not come up' "$logs/cluster.log" | cut -c1-200) (log: $logs/cluster.log)" ;;
  130) echo "FAIL verbs-cluster: interrupted" ;;
  *) echo "FAIL verbs-cluster: the suite ended with exit code $rc (log: $logs/cluster.log)" ;;
esac
echo "# rdma-vm-cluster: suite wall $(( $(date +%s) - t0 )) s"
rm -rf "$ctl"
[ "$rc" = 0 ]
