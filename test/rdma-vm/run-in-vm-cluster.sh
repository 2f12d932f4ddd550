#!/usr/bin/env bash
# run-in-vm-cluster.sh - a two-host RDMA cluster for one command: two soft-RoCE VMs
# (run-in-rdma-vm.sh, same folder), each with its own rdma_rxe device on its own NIC, the two
# NICs joined by an Ethernet segment that exists only between them (a qemu "stream" netdev over
# a unix socket in a private 0700 directory: no host interface, no route out), and a 2-node
# Slurm inside (munge, slurmctld on n1, one slurmd per VM). COMMAND runs on n1 once both nodes
# are idle, so `-- srun --mpi=pmix -N 2 -n 2 ./prog` runs one rank per host.
#
# Usage:
#   run-in-vm-cluster.sh [options] -- COMMAND [ARGS...]
#   run-in-vm-cluster.sh [options] --selftest     # ibv_rc_pingpong n1 <-> n2, srun hostname
# Options:
#   -s DIR    host folder shared read-write into both VMs at the same path (default $PWD);
#             COMMAND starts in $PWD if it is inside DIR, else in DIR
#   -t SECS   wall-clock limit for the whole run (default 900)
#   -m MB     memory per VM (default 2048)
#   -c N      vCPUs per VM (default 2)
#   -e N=V    extra environment variable for COMMAND (repeatable)
#   -k        keep the cluster directory (Slurm and munge logs, each VM's output) and print it
#   -q        quiet: no "[vm-cluster]" / "[rdma-vm]" progress lines on stderr
# The hosts: n1 = 10.252.0.1, n2 = 10.252.0.2 on eth0 (/24), rxe0 on each; Slurm's nodes n1 and
# n2 offer MPR_VM_CLUSTER_CPUS CPUs each (default 4) whatever the vCPU count. COMMAND runs as
# root under bash on n1 with SLURM_CONF exported, TMPDIR=/tmp, and RDMA_DEV, RDMA_GID_INDEX,
# RDMA_IP, RDMA_PEER_IP (n2's address) set. Everything else is as in run-in-rdma-vm.sh: the
# host's /usr and /etc read-only (/etc/hosts is replaced inside each VM), no sockets on the share.
# Exit status: COMMAND's; 124 time limit; 125 a VM, its RDMA device or the Slurm cluster did not
# come up (the reason and the logs' ends on stderr); 130 interrupted. Nothing is left running.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SHARE=$PWD; TIMEOUT=900; MEM=2048; CPUS=2; KEEP=0; QUIET=0; SELFTEST=0
EXTRA_ENV=()
while [ $# -gt 0 ]; do
  case $1 in
    -s) SHARE=$2; shift 2 ;;
    -t) TIMEOUT=$2; shift 2 ;;
    -m) MEM=$2; shift 2 ;;
    -c) CPUS=$2; shift 2 ;;
    -e) EXTRA_ENV+=("$2"); shift 2 ;;
    -k) KEEP=1; shift ;;
    -q) QUIET=1; shift ;;
    --selftest) SELFTEST=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    -*) echo "run-in-vm-cluster: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ "$SELFTEST" = 0 ] && [ $# = 0 ]; then
  echo "usage: $0 [-s DIR] [-t SECS] [-m MB] [-c N] [-e N=V] [-k] [-q] -- COMMAND [ARGS...] | --selftest" >&2
  exit 2
fi
log() { [ "$QUIET" = 1 ] || echo "[vm-cluster] $*" >&2; }
die() { echo "[vm-cluster] ERROR: $*" >&2; exit 125; }
[ "$(id -u)" = 0 ] || die "must run as root (qemu's 9p export of /usr and /etc, apt-get)"
NET=10.252.0
NODE_CPUS=${MPR_VM_CLUSTER_CPUS:-4}
t_start=$(date +%s)

# ---- host side: the VM cache, and Slurm and munge for the guests (they run the host's /usr) ----
vm=$here/run-in-rdma-vm.sh
"$vm" -q --setup-only || die "the VM cache could not be set up (run $vm --setup-only)"
PKGS="slurmd slurmctld slurm-client munge libpmix2 ibverbs-utils"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=" $p"
done
if [ -n "$missing" ]; then
  log "apt-get install$missing"
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    -o DPkg::Lock::Timeout=600 $missing >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1
      # shellcheck disable=SC2086
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        -o DPkg::Lock::Timeout=600 $missing >/dev/null; } || die "apt-get install$missing failed"
fi
# The munge user must exist on the host: the guests read its /etc/passwd.
id munge >/dev/null 2>&1 || die "no munge user on this machine (the munge package creates it)"

# ---- the cluster directory, shared into both VMs at the same path -----------------------------
CL=$(mktemp -d /tmp/mpr-vm-cluster.XXXXXX)   # mode 0700: sockets, key and logs are ours alone
mkdir "$CL/log"
pids=()
cleanup() {
  local p
  for p in "${pids[@]+"${pids[@]}"}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]+"${pids[@]}"}"; do wait "$p" 2>/dev/null || true; done
  if [ "$KEEP" = 1 ]; then log "cluster directory kept: $CL"; else rm -rf "$CL"; fi
}
trap cleanup EXIT
(umask 0277 && dd if=/dev/urandom of="$CL/munge.key" bs=1024 count=1 status=none)
printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n%s.1 n1\n%s.2 n2\n' \
  "$NET" "$NET" >"$CL/hosts"
cat >"$CL/slurm.conf" <<CONF
# Written by test/rdma-vm/run-in-vm-cluster.sh for one run; every path but the logs is inside
# the VMs (tmpfs), because sockets cannot live on the 9p share.
ClusterName=mprvm
SlurmctldHost=n1($NET.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=/run/munge/munge.socket
CredType=cred/munge
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=/tmp/slurm/ctld
SlurmdSpoolDir=/tmp/slurm/spool
SlurmctldPidFile=/tmp/slurm/slurmctld.pid
SlurmdPidFile=/tmp/slurm/slurmd.pid
SlurmctldLogFile=$CL/log/slurmctld.log
SlurmdLogFile=$CL/log/slurmd.%n.log
TmpFS=/tmp/slurm/tmp
PlugStackConfig=$CL/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SlurmdParameters=config_overrides
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
InactiveLimit=0
KillWait=2
MessageTimeout=30
SlurmdTimeout=120
NodeName=n1 NodeHostname=n1 NodeAddr=$NET.1 CPUs=$NODE_CPUS State=UNKNOWN
NodeName=n2 NodeHostname=n2 NodeAddr=$NET.2 CPUs=$NODE_CPUS State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
: >"$CL/plugstack.conf"
# cgroup v2 without systemd (the VMs run none): slurmd makes its own cgroup directories.
printf 'CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n' >"$CL/cgroup.conf"
cp "$here/vm-cluster-node.sh" "$CL/node.sh"
if [ "$SELFTEST" = 1 ]; then
  cp "$here/vm-cluster-selftest.sh" "$CL/cmd.sh"
else
  { echo 'set +e'; printf '%q ' "$@"; echo; } >"$CL/cmd.sh"
fi

# ---- boot both; n2 serves until n1's command is done ---------------------------------------------
common=(-t "$TIMEOUT" -m "$MEM" -c "$CPUS" -s "$SHARE" -x "$CL")
[ "$QUIET" = 1 ] && common+=(-q)
# The segment: a unix stream socket in $CL that n2's qemu listens on and n1's connects to. A
# stream, not datagrams: a unix datagram socket's queue holds only net.unix.max_dgram_qlen (10)
# packets, qemu drops what does not fit, and every drop costs RoCE a retransmission timeout.
log "booting n1 ($NET.1) and n2 ($NET.2); limit ${TIMEOUT}s; cluster directory $CL"
"$vm" "${common[@]}" --hostname n2 --ip "$NET.2" --mac 52:54:00:fc:00:02 \
  --netdev "stream,server=on,addr.type=unix,addr.path=$CL/segment.sock" \
  -- bash "$CL/node.sh" "$CL" n2 >"$CL/log/n2.out" 2>&1 &
pids+=($!)
n2pid=$!
envs=()
for kv in "${EXTRA_ENV[@]+"${EXTRA_ENV[@]}"}"; do envs+=(-e "$kv"); done
set +e
trap 'kill -TERM "${pids[@]}" 2>/dev/null; echo "[vm-cluster] interrupted" >&2; exit 130' INT TERM HUP
for _ in $(seq 300); do [ -S "$CL/segment.sock" ] && break; kill -0 "$n2pid" 2>/dev/null || break; sleep 0.1; done
[ -S "$CL/segment.sock" ] || { cat "$CL/log/n2.out" >&2; die "n2's qemu did not open the segment's socket"; }
"$vm" "${common[@]}" "${envs[@]+"${envs[@]}"}" -e "RDMA_PEER_IP=$NET.2" --hostname n1 --ip "$NET.1" \
  --mac 52:54:00:fc:00:01 --netdev "stream,server=off,addr.type=unix,addr.path=$CL/segment.sock" -- bash "$CL/node.sh" "$CL" n1 bash "$CL/cmd.sh" &
n1pid=$!
pids+=("$n1pid")
wait "$n1pid"
rc=$?
trap - INT TERM HUP
# n1's node script writes $CL/stop when it is done; make sure n2 sees it even if n1 died early.
touch "$CL/stop"
for _ in $(seq 100); do kill -0 "$n2pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$n2pid" 2>/dev/null && { log "n2 did not power off in 10 s; stopping it"; kill -TERM "$n2pid"; }
wait "$n2pid" 2>/dev/null
n2rc=$?
set -e
if [ -s "$CL/setup_error" ]; then
  echo "[vm-cluster] the cluster did not come up: $(cat "$CL/setup_error")" >&2
  for f in "$CL"/log/*; do
    [ -s "$f" ] || continue
    echo "---- $(basename "$f") (last lines)" >&2
    tail -n 15 "$f" | cut -c1-300 >&2
  done
  [ "$rc" = 0 ] && rc=125
elif [ "$n2rc" != 0 ] && [ "$rc" = 0 ]; then
  echo "[vm-cluster] n2 ended with exit code $n2rc (log below)" >&2
  tail -n 20 "$CL/log/n2.out" >&2
fi
log "exit code $rc; wall $(( $(date +%s) - t_start )) s"
exit "$rc"
