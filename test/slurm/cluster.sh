#!/bin/bash
# A 2-node Slurm cluster on this one machine, for MPR's multi-node tests. Each node's slurmd runs
# in its own network namespace (one veth on a private bridge that has no uplink and no route out,
# so nothing can leave the machine), its own UTS namespace (gethostname() is n1 or n2) and a
# private mount namespace with its own /etc/hosts. slurmctld and a private munged run in the root
# namespace; the nodes reach slurmctld over the bridge. Nothing outside the state directory is
# configured: every daemon and client reads $SLURM_CONF (/etc/slurm is never touched).
#
#   cluster.sh start              install what is missing, start, wait until both nodes are idle
#   cluster.sh stop               stop everything start started; idempotent
#   cluster.sh run [--] CMD...    start, run CMD (SLURM_CONF exported), always stop; CMD's status
#   cluster.sh innode n1|n2 CMD...   run CMD "on" a node (its net, UTS and mount namespaces)
#   cluster.sh env                print the export line for SLURM_CONF
#
# Both nodes share this machine's cores: each offers MPR_SLURM_NODE_CPUS CPUs (default 4, so
# -N 2 -n 8 fits) whatever the hardware has (SlurmdParameters=config_overrides), with
# TaskPlugin=task/none (no binding) and ProctrackType=proctrack/linuxproc (no cgroups).
# /dev/shm and every file system are shared by the nodes; MPR's ranks tell node-local peers
# from PMIx's local peers, never from the file system. See test/README.md.
#
# Environment: MPR_SLURM_STATE (state directory, default /tmp/mpr-slurm-cluster, mode 0700),
# MPR_SLURM_NET (the private /24 as its first three octets, default 10.250.47),
# MPR_SLURM_PORT (slurmctld's port, default 16817; each slurmd listens on PORT+1 in its own
# namespace), MPR_SLURM_NODE_CPUS, MPR_SLURM_START_TIMEOUT (seconds, default 60).
#
# Daemons are started in the foreground under setsid, so their pids are known (and recorded with
# their start times) before they run; stop kills only recorded pids whose start time still
# matches, and every process left inside a node's network namespace (slurmstepd, tasks), which
# only this script creates. Never start slurmd with `ip netns exec`: that remounts /sys, and
# slurmd 22.05 then finds no /sys/fs/cgroup and exits; nsenter --net keeps the mounts.
set -u
# A reader that goes away (cluster.sh start | head) must not end the script halfway through
# starting or stopping the cluster.
trap '' PIPE

SELF=$(readlink -f "$0")
STATE=${MPR_SLURM_STATE:-/tmp/mpr-slurm-cluster}
STATE=${STATE%/}
NET=${MPR_SLURM_NET:-10.250.47}
PORT=${MPR_SLURM_PORT:-16817}
NODE_CPUS=${MPR_SLURM_NODE_CPUS:-4}
START_TIMEOUT=${MPR_SLURM_START_TIMEOUT:-60}
NODES="n1 n2"
BRIDGE=mprslurm0
BR_IP=$NET.254
# munged runs as the munge user, which cannot enter the 0700 state directory.
MUNGE_DIR=$STATE.munge
MUNGE_KEY=/etc/munge/munge.key
CONF=$STATE/etc/slurm.conf
PACKAGES="slurm-wlm slurm-wlm-basic-plugins slurmd slurmctld slurm-client munge libpmix2 iproute2"

netns_of() { echo "mpr-slurm-$1"; }
veth_of() { echo "mprsl-$1"; }
msg() { echo "cluster.sh: $*" >&2; }
die() { msg "$*"; exit 1; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
secs_since() { awk -v a="$1" -v b="$(now_ms)" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }

# ---- processes ---------------------------------------------------------------------------------
# Field 22 of /proc/PID/stat: the start time, which tells a recorded process from a reused pid.
start_time() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  set -- $stat
  echo "${20}"
}
# record NAME PID: remembers PID and its start time as $STATE/pids/NAME.
record() {
  local t
  t=$(start_time "$2") || t=gone
  echo "$2 $t" >"$STATE/pids/$1"
}
# recorded_pid NAME: the pid of NAME if it is still the process that was recorded.
recorded_pid() {
  local f=$STATE/pids/$1 pid t
  [ -s "$f" ] || return 1
  read -r pid t <"$f"
  [ "$(start_time "$pid")" = "$t" ] && echo "$pid"
}
# alive PID: the process exists and is not a zombie (this machine's init may take its time to
# reap the orphans it inherits, such as a killed slurmd's slurmstepd).
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}
# stop_pids SECS PID...: SIGTERM, then SIGKILL for whatever still runs after SECS seconds.
stop_pids() {
  local secs=$1 pid left i
  shift
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2>/dev/null
  left="$*"
  for ((i = 0; i < secs * 20; i++)); do
    left=""
    for pid; do alive "$pid" && left+=" $pid"; done
    [ -z "$left" ] && return 0
    sleep 0.05
  done
  # shellcheck disable=SC2086
  kill -KILL $left 2>/dev/null
  for ((i = 0; i < 40; i++)); do
    left=""
    for pid; do alive "$pid" && left+=" $pid"; done
    [ -z "$left" ] && return 0
    sleep 0.05
  done
}
# netns_pids: every process in a node's network namespace (only this script puts any there).
netns_pids() {
  local n inos="" ino
  for n in $NODES; do
    ino=$(stat -L -c %i "/run/netns/$(netns_of "$n")" 2>/dev/null) && inos+=" $ino"
  done
  [ -n "$inos" ] || return 0
  # stat follows /proc/PID/ns/net to the namespace's inode, one process for all of /proc.
  stat -L -c '%i %n' /proc/[0-9]*/ns/net 2>/dev/null |
    awk -v inos="$inos" 'BEGIN { n = split(inos, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
      ($1 in want) { split($2, p, "/"); print p[3] }'
}
# spawn NAME LOG CMD...: starts CMD as a daemon in a session of its own (stdin /dev/null,
# output to LOG) and records its pid. CMD must stay in the foreground and exec (not fork) down
# to the daemon, so the pid recorded is the daemon's.
spawn() {
  local name=$1 log=$2
  shift 2
  setsid "$@" </dev/null >>"$log" 2>&1 &
  record "$name" $!
}

# ---- install -----------------------------------------------------------------------------------
install_missing() {
  local missing="" p
  for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=" $p"
  done
  [ -z "$missing" ] && return 0
  msg "installing$missing"
  local apt=(apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600)
  # shellcheck disable=SC2086
  if ! DEBIAN_FRONTEND=noninteractive "${apt[@]}" $missing >"$STATE/log/apt.log" 2>&1; then
    apt-get update -qq -o DPkg::Lock::Timeout=600 >>"$STATE/log/apt.log" 2>&1
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive "${apt[@]}" $missing >>"$STATE/log/apt.log" 2>&1 ||
      { tail -n 20 "$STATE/log/apt.log" >&2; return 1; }
  fi
}

# ---- stop ----------------------------------------------------------------------------------------
stop_cluster() {
  local n pid name
  # Jobs first, so that nothing new starts; their processes end with the nodes' below.
  if [ -n "$(recorded_pid slurmctld)" ] && [ -s "$CONF" ]; then
    local jobs
    jobs=$(SLURM_CONF=$CONF timeout 5 squeue -h -o %i 2>/dev/null)
    # shellcheck disable=SC2086
    [ -n "$jobs" ] && SLURM_CONF=$CONF timeout 5 scancel $jobs 2>/dev/null
  fi
  # Then every daemon at once (each takes 1-2 s to notice SIGTERM), and whatever else runs on
  # the nodes: slurmstepd (which does not end on SIGTERM), tasks, innode commands. Those get
  # SIGKILL once the daemons are gone.
  local daemons="" others
  for name in slurmd.n1 slurmd.n2 slurmctld munged; do
    pid=$(recorded_pid "$name") && daemons+=" $pid"
  done
  others=$(netns_pids | tr '\n' ' ')
  # shellcheck disable=SC2086
  [ -n "${others// /}" ] && kill -TERM $others 2>/dev/null
  # shellcheck disable=SC2086
  stop_pids 3 $daemons
  others=$(netns_pids | tr '\n' ' ')
  # shellcheck disable=SC2086
  [ -n "${others// /}" ] && stop_pids 0 $others
  for n in $NODES; do
    ip netns del "$(netns_of "$n")" 2>/dev/null
    ip link del "$(veth_of "$n")" 2>/dev/null
  done
  ip link del "$BRIDGE" 2>/dev/null
  rm -rf "$STATE" "$MUNGE_DIR"
  return 0
}

# ---- start ---------------------------------------------------------------------------------------
already_up() {
  local n
  [ -d "$STATE/pids" ] && return 0
  ip link show "$BRIDGE" >/dev/null 2>&1 && return 0
  for n in $NODES; do [ -e "/run/netns/$(netns_of "$n")" ] && return 0; done
  return 1
}

setup_network() {
  local i=0 n ns veth
  # The bridge's /24 must be ours alone: an address or route already in it would make the nodes
  # reachable from (or routed to) somewhere else.
  if ip -4 -o addr show | grep -q " inet $NET\." || [ -n "$(ip -4 route show "$NET.0/24")" ]; then
    msg "$NET.0/24 is already in use on this machine; set MPR_SLURM_NET to a free private /24"
    return 1
  fi
  ip link add "$BRIDGE" type bridge || return 1
  ip addr add "$BR_IP/24" dev "$BRIDGE" || return 1
  ip link set "$BRIDGE" up || return 1
  for n in $NODES; do
    i=$((i + 1))
    ns=$(netns_of "$n")
    veth=$(veth_of "$n")
    ip netns add "$ns" || return 1
    ip link add "$veth" type veth peer name "$veth-c" || return 1
    ip link set "$veth-c" netns "$ns" || return 1
    ip link set "$veth" master "$BRIDGE" up || return 1
    ip -n "$ns" link set lo up || return 1
    ip -n "$ns" link set "$veth-c" name eth0 || return 1
    ip -n "$ns" addr add "$NET.$i/24" dev eth0 || return 1
    ip -n "$ns" link set eth0 up || return 1
    mkdir -p "$STATE/nodes/$n/spool" "$STATE/nodes/$n/tmp"
    printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n%s %s\n%s.1 n1\n%s.2 n2\n' \
      "$BR_IP" "$(hostname)" "$NET" "$NET" >"$STATE/nodes/$n/hosts"
    chmod 0644 "$STATE/nodes/$n/hosts"
  done
}

start_munge() {
  if [ ! -s "$MUNGE_KEY" ]; then
    install -d -o munge -g munge -m 0700 "$(dirname "$MUNGE_KEY")"
    (umask 0277 && dd if=/dev/urandom of="$MUNGE_KEY" bs=1024 count=1 status=none) || return 1
    chown munge:munge "$MUNGE_KEY"
    chmod 0400 "$MUNGE_KEY"
  fi
  install -d -o munge -g munge -m 0755 "$MUNGE_DIR"
  spawn munged "$STATE/log/munged.out" setpriv --reuid=munge --regid=munge --init-groups \
    /usr/sbin/munged -F --socket="$MUNGE_DIR/munge.socket" --key-file="$MUNGE_KEY" \
    --pid-file="$MUNGE_DIR/munged.pid" --log-file="$MUNGE_DIR/munged.log" \
    --seed-file="$MUNGE_DIR/munged.seed"
  for _ in $(seq 100); do
    [ -S "$MUNGE_DIR/munge.socket" ] && return 0
    [ -n "$(recorded_pid munged)" ] || break
    sleep 0.05
  done
  msg "munged did not start"
  return 1
}

write_conf() {
  mkdir -p "$STATE/etc" "$STATE/ctld"
  cat >"$CONF" <<CONF
# Written by test/slurm/cluster.sh; removed by cluster.sh stop.
ClusterName=mprtest
SlurmctldHost=$(hostname -s)($BR_IP)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$MUNGE_DIR/munge.socket
CredType=cred/munge
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/nodes/%n/spool
SlurmctldPidFile=$STATE/run/slurmctld.pid
SlurmdPidFile=$STATE/run/slurmd.%n.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.%n.log
# Per node: the PMIx plugin creates its client directories here, and two nodes sharing one
# TmpFS collide ("Cannot create client cli tmpdir ... File exists").
TmpFS=$STATE/nodes/%n/tmp
PlugStackConfig=$STATE/etc/plugstack.conf
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
MessageTimeout=20
NodeName=n1 NodeHostname=n1 NodeAddr=$NET.1 CPUs=$NODE_CPUS State=UNKNOWN
NodeName=n2 NodeHostname=n2 NodeAddr=$NET.2 CPUs=$NODE_CPUS State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
  : >"$STATE/etc/plugstack.conf"
}

# wait_for SECS WHAT CMD...: polls CMD until it succeeds; false after SECS seconds, or at once
# when CMD returns 2 (it will never succeed).
wait_for() {
  local secs=$1 what=$2 t0 st
  shift 2
  t0=$(now_ms)
  while [ $(($(now_ms) - t0)) -lt $((secs * 1000)) ]; do
    "$@"
    st=$?
    [ "$st" = 0 ] && return 0
    [ "$st" = 2 ] && return 1
    sleep 0.1
  done
  msg "timed out after $secs s waiting for $what"
  return 1
}
ctld_up() { SLURM_CONF=$CONF timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP'; }
nodes_idle() {
  [ "$(SLURM_CONF=$CONF timeout 5 sinfo -h -N -o '%N %T' 2>/dev/null | grep -c -E '^n[12] idle$')" = 2 ]
}
daemons_alive() {
  local name
  for name in munged slurmctld "$@"; do
    [ -n "$(recorded_pid "$name")" ] || { msg "$name exited during start"; return 2; }
  done
}

show_logs() {
  local f
  for f in "$STATE"/log/*.log "$STATE"/log/*.out "$MUNGE_DIR/munged.log"; do
    [ -s "$f" ] || continue
    echo "---- $f (last lines)" >&2
    tail -n 12 "$f" | cut -c1-300 >&2
  done
  SLURM_CONF=$CONF timeout 5 sinfo -N 2>/dev/null >&2
}

start_cluster() {
  local t0 n
  t0=$(now_ms)
  [ "$(id -u)" = 0 ] || die "start needs root"
  if already_up; then
    die "a cluster is already up (state $STATE, bridge $BRIDGE); run 'cluster.sh stop' first"
  fi
  install -d -m 0700 "$STATE"
  mkdir -p "$STATE/pids" "$STATE/log" "$STATE/run"
  install_missing || { msg "cannot install the packages (log: $STATE/log/apt.log)"; return 1; }
  setup_network || { msg "cannot set up the network"; return 1; }
  start_munge || return 1
  write_conf
  spawn slurmctld "$STATE/log/slurmctld.out" env SLURM_CONF="$CONF" \
    /usr/sbin/slurmctld -D -c -f "$CONF"
  wait_for "$START_TIMEOUT" "slurmctld to answer" eval 'daemons_alive && ctld_up' || return 1
  for n in $NODES; do
    spawn "slurmd.$n" "$STATE/log/slurmd.$n.out" "$SELF" innode "$n" \
      env SLURM_CONF="$CONF" /usr/sbin/slurmd -D -N "$n" -f "$CONF"
  done
  wait_for "$START_TIMEOUT" "both nodes to be idle" \
    eval 'daemons_alive slurmd.n1 slurmd.n2 && nodes_idle' || return 1
  echo "export SLURM_CONF=$CONF" >"$STATE/env"
  msg "cluster up in $(secs_since "$t0") s: nodes n1 ($NET.1) and n2 ($NET.2), $NODE_CPUS CPUs each; export SLURM_CONF=$CONF"
}

# start, or clean up everything and fail with the logs' ends.
start_or_clean() {
  trap 'stop_cluster; exit 130' INT TERM HUP
  if ! start_cluster; then
    [ -d "$STATE/log" ] && show_logs
    stop_cluster
    trap - INT TERM HUP
    return 1
  fi
  trap - INT TERM HUP
}

# ---- innode ----------------------------------------------------------------------------------------
innode() {
  local n=${1:-}
  case $n in n1 | n2) ;; *) die "usage: cluster.sh innode n1|n2 CMD..." ;; esac
  shift
  [ $# -gt 0 ] || die "usage: cluster.sh innode n1|n2 CMD..."
  [ -e "/run/netns/$(netns_of "$n")" ] || die "node $n is not up (cluster.sh start)"
  # A fresh UTS and mount namespace each time (the node's slurmd has its own); unshare makes
  # the new mounts private, so the bind mount of /etc/hosts stays inside.
  trap - PIPE
  exec nsenter --net="/run/netns/$(netns_of "$n")" unshare --uts --mount \
    sh -c 'mount --bind "$1" /etc/hosts && hostname "$2" && shift 2 && exec "$@"' \
    sh "$STATE/nodes/$n/hosts" "$n" "$@"
}

# ---- run ---------------------------------------------------------------------------------------------
# CMD runs in a session of its own, so that an interrupted run can end all of it (srun, sbatch
# --wait, mprun) by its process group before the cluster goes away.
run_with_cluster() {
  [ "${1:-}" = -- ] && shift
  [ $# -gt 0 ] || die "usage: cluster.sh run [--] CMD..."
  unset MPR_SLURM_RUN_REEXEC
  start_or_clean || exit 1
  export SLURM_CONF=$CONF
  local cmd_pid rc t0
  end_run() {
    local sig=$1
    trap '' INT TERM HUP
    if [ -n "${cmd_pid:-}" ] && kill -0 "$cmd_pid" 2>/dev/null; then
      msg "got SIG$sig: ending the command and stopping the cluster"
      kill -TERM -- "-$cmd_pid" 2>/dev/null
      for _ in $(seq 50); do kill -0 "$cmd_pid" 2>/dev/null || break; sleep 0.1; done
    fi
    kill -KILL -- "-$cmd_pid" 2>/dev/null
    stop_cluster
    exit $((128 + $(kill -l "$sig")))
  }
  trap 'end_run INT' INT
  trap 'end_run TERM' TERM
  trap 'end_run HUP' HUP
  # An explicit stdin: a background command would get /dev/null instead. SIGPIPE back at its
  # default for CMD (this script ignores it).
  (trap - PIPE && exec setsid "$@") <&0 &
  cmd_pid=$!
  wait "$cmd_pid"
  rc=$?
  trap '' INT TERM HUP
  # Anything CMD left behind in its process group.
  kill -KILL -- "-$cmd_pid" 2>/dev/null
  t0=$(now_ms)
  stop_cluster
  msg "cluster stopped in $(secs_since "$t0") s"
  exit "$rc"
}

case ${1:-} in
  start)
    start_or_clean
    ;;
  stop)
    t0=$(now_ms)
    stop_cluster
    msg "cluster stopped in $(secs_since "$t0") s"
    ;;
  run)
    shift
    # An asynchronous command of a script starts with SIGINT ignored. bash cannot trap a signal
    # ignored at entry, and its `wait` then dies of a SIGINT without stopping the cluster.
    if (((0x$(awk '/^SigIgn:/ { print $2 }' /proc/$$/status) & 2) != 0)) &&
      [ -z "${MPR_SLURM_RUN_REEXEC:-}" ]; then
      MPR_SLURM_RUN_REEXEC=1 exec env --default-signal=INT bash "$SELF" run "$@"
    fi
    run_with_cluster "$@"
    ;;
  innode)
    shift
    innode "$@"
    ;;
  env)
    [ -s "$STATE/env" ] || die "no cluster is up"
    cat "$STATE/env"
    ;;
  *)
    sed -n '2,/^set -u/p' "$SELF" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
