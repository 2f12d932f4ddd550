#!/usr/bin/env bash
# Runs INSIDE each VM of run-in-vm-cluster.sh (see there) as the VM's command:
#   vm-cluster-node.sh CLUSTER_DIR n1 COMMAND...   munged, slurmctld, slurmd; waits until both
#                                                  nodes are idle, runs COMMAND, says stop
#   vm-cluster-node.sh CLUSTER_DIR n2              munged, slurmd; serves until n1 says stop
# A failure to come up is written to CLUSTER_DIR/setup_error (exit 125).
set -u
CL=$1
ROLE=$2
shift 2
export SLURM_CONF=$CL/slurm.conf TMPDIR=/tmp PMIX_SYSTEM_TMPDIR=/tmp PMIX_SERVER_TMPDIR=/tmp
up() { cut -d' ' -f1 /proc/uptime; }
note() { echo "[$ROLE $(up)] $*" >>"$CL/log/$ROLE.setup"; }
setup_failed() {
  note "FAILED: $*"
  echo "$ROLE: $*" >>"$CL/setup_error"
  touch "$CL/stop"
  exit 125
}
# wait_until SECS CMD...: polls CMD every 0.2 s
wait_until() {
  local secs=$1 i
  shift
  for ((i = 0; i < secs * 5; i++)); do
    "$@" && return 0
    [ -e "$CL/setup_error" ] && return 1
    sleep 0.2
  done
  return 1
}

note "start (device ${RDMA_DEV:-none}, GID index ${RDMA_GID_INDEX:-none}, $RDMA_IP)"
# Names of both hosts: this VM sees the host's /etc read-only; put its own hosts file on top.
cp "$CL/hosts" /run/hosts && mount --bind /run/hosts /etc/hosts || setup_failed "cannot replace /etc/hosts"
echo "${RDMA_GID_INDEX:-}" >/run/rdma-gid-index
# slurmd's cgroup/v2 plugin without systemd (IgnoreSystemd in cgroup.conf) puts slurmstepd in
# system.slice, which systemd would have made.
mount -t cgroup2 none /sys/fs/cgroup && mkdir -p /sys/fs/cgroup/system.slice ||
  setup_failed "cannot mount cgroup2 on /sys/fs/cgroup"

# munge: the key from the cluster directory, the socket on tmpfs
install -d -o munge -g munge -m 0755 /run/munge
install -d -o munge -g munge -m 0700 /tmp/munge
install -o munge -g munge -m 0400 "$CL/munge.key" /tmp/munge/munge.key ||
  setup_failed "cannot install the munge key"
setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged \
  --socket=/run/munge/munge.socket --key-file=/tmp/munge/munge.key \
  --pid-file=/tmp/munge/munged.pid --log-file=/tmp/munge/munged.log \
  --seed-file=/tmp/munge/munged.seed >>"$CL/log/$ROLE.setup" 2>&1 ||
  { cat /tmp/munge/munged.log >>"$CL/log/$ROLE.setup" 2>/dev/null; setup_failed "munged did not start"; }
wait_until 20 test -S /run/munge/munge.socket ||
  { cat /tmp/munge/munged.log >>"$CL/log/$ROLE.setup" 2>/dev/null; setup_failed "munged made no socket in 20 s"; }
note "munged up"

mkdir -p /tmp/slurm/ctld /tmp/slurm/spool /tmp/slurm/tmp
ctld_up() { timeout 10 scontrol ping 2>/dev/null | grep -q 'is UP'; }
if [ "$ROLE" = n1 ]; then
  /usr/sbin/slurmctld -c -f "$SLURM_CONF" >>"$CL/log/$ROLE.setup" 2>&1 ||
    setup_failed "slurmctld did not start (log/slurmctld.log)"
  wait_until 60 ctld_up || setup_failed "slurmctld did not answer in 60 s (log/slurmctld.log)"
  note "slurmctld up"
fi
/usr/sbin/slurmd -N "$ROLE" -f "$SLURM_CONF" >>"$CL/log/$ROLE.setup" 2>&1 ||
  setup_failed "slurmd did not start (log/slurmd.$ROLE.log)"
note "slurmd started"

if [ "$ROLE" != n1 ]; then
  # Serve until n1 is done (or a limit far beyond any run: the host kills the VM anyway).
  wait_until 86400 test -e "$CL/stop"
  note "stop"
  exit 0
fi

idle() { [ "$(timeout 10 sinfo -h -N -o '%N %T' 2>/dev/null | grep -c -E '^n[12] idle$')" = 2 ]; }
if ! wait_until 120 idle; then
  timeout 10 sinfo -N >>"$CL/log/$ROLE.setup" 2>&1
  setup_failed "the two nodes were not both idle after 120 s ($(timeout 10 sinfo -h -N -o '%N=%T' 2>/dev/null | tr '\n' ' '))"
fi
note "both nodes idle; running the command"
"$@"
rc=$?
note "command exit code $rc"
touch "$CL/stop"
exit "$rc"
