#!/bin/bash
# Multi-node checks on the 2-node test cluster of test/slurm/cluster.sh: the nodes themselves,
# mprun inside sbatch allocations (handing multi-node jobs to srun, keeping single-node ones),
# MPI programs under srun, and that the cluster leaves nothing behind, also when interrupted.
# Prints "PASS name", "FAIL name: why" or "SKIP name: why" per check (test/lib/harness.sh) and
# a summary; exits non-zero if any check failed. Needs root (the cluster does).
#
#   run-cluster-stages.sh BUILD_DIR          start the cluster, run the checks, stop it
#   run-cluster-stages.sh --inside BUILD_DIR the checks alone, on a cluster already up
#                                            (SLURM_CONF exported, e.g. by cluster.sh run)
#   run-cluster-stages.sh --srun-prefix      print the launcher prefix that takes "-n N prog
#                                            args" and runs across both nodes from the root
#                                            namespace (for test/lib/harness.sh's launcher)
#
# MPR_CLUSTER_ONLY (extended regex) selects checks by name. cluster-mprun-hello and
# cluster-srun-hello need a backend between nodes (tcp); until there is one they fail with
# "no backend reaches peer".
set -u

here=$(cd "$(dirname "$0")" && pwd)
srcroot=$(cd "$here/../.." && pwd)
cluster=$here/cluster.sh
state=${MPR_SLURM_STATE:-/tmp/mpr-slurm-cluster}

if [ "${1:-}" = --srun-prefix ]; then
  echo "env SLURM_CONF=$state/etc/slurm.conf $here/srun-2nodes.sh"
  exit 0
fi
inside=0
if [ "${1:-}" = --inside ]; then
  inside=1
  shift
fi
[ $# -eq 1 ] || { sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//' >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2

# shellcheck disable=SC2034 # read by the harness
h_only=${MPR_CLUSTER_ONLY:-}
# shellcheck source=test/lib/harness.sh
. "$srcroot/test/lib/harness.sh"

# ---- outside: the cluster's own start, stop and cleanup --------------------------------------
# cluster_processes: pids of the daemons recorded in the state directory, and of every process
# in a node's network namespace (what stop must end).
cluster_processes() {
  local f pid n ino
  for f in "$state"/pids/*; do
    [ -s "$f" ] && read -r pid _ <"$f" && kill -0 "$pid" 2>/dev/null && echo "$pid"
  done
  for n in n1 n2; do
    ino=$(stat -L -c %i "/run/netns/mpr-slurm-$n" 2>/dev/null) || continue
    stat -L -c '%i %n' /proc/[0-9]*/ns/net 2>/dev/null |
      awk -v ino="$ino" '$1 == ino { split($2, p, "/"); print p[3] }'
  done
}
# left_behind PIDS: what of PIDS still runs, which namespaces and links still exist.
left_behind() {
  local pid out=""
  # Zombies are gone already (init reaps them in its own time).
  for pid in $1; do
    case $(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null) in
      "" | Z | X) ;;
      *) out+=" pid $pid ($(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-60))" ;;
    esac
  done
  ip netns list 2>/dev/null | grep -q 'mpr-slurm-' && out+=" namespaces: $(ip netns list | grep mpr-slurm- | tr '\n' ' ')"
  ip link show mprslurm0 >/dev/null 2>&1 && out+=" bridge mprslurm0"
  [ -e "$state" ] && out+=" state $state"
  echo "$out"
}

if [ "$inside" = 0 ]; then
  [ "$(id -u)" = 0 ] || { echo "FAIL cluster: needs root"; exit 1; }
  # With the build's other logs (replaced each run), so nothing is left in /tmp.
  logdir=$build/test-logs/cluster-stages
  rm -rf "$logdir"
  mkdir -p "$logdir"
  stage "cluster stages (logs: $logdir)"
  # The checks run inside; their lines are counted here. The daemons' pids are saved before
  # the cluster stops, to check afterwards that none survived.
  timed_run 900 "$cluster" run -- bash -c 'bash "$1" --inside "$2"; rc=$?; cat "$3"/pids/* >"$4/daemons" 2>/dev/null; exit $rc' \
    sh "$0" "$build" "$state" "$logdir" >"$logdir/inside.log" 2>&1
  while IFS= read -r line; do
    case $line in
      "PASS "*) h_pass=$((h_pass + 1)); echo "$line" ;;
      "FAIL "*) h_fail=$((h_fail + 1)); echo "$line" ;;
      "SKIP "*) h_skip=$((h_skip + 1)); echo "$line" ;;
      "    "* | "# "*) echo "$line" ;;
    esac
  done <"$logdir/inside.log"
  if grep -q '^cluster.sh: cluster up' "$logdir/inside.log"; then
    pass cluster-start "$(grep -o 'up in [0-9.]* s' "$logdir/inside.log")"
  else fail cluster-start "the cluster did not come up (exit $rc)" "$logdir/inside.log"; fi
  daemons=$(awk '{ print $1 }' "$logdir/daemons" 2>/dev/null | tr '\n' ' ')
  left=$(left_behind "$daemons")
  if [ -z "$daemons" ]; then fail cluster-stopped-clean "no daemon pids were recorded" "$logdir/inside.log"
  elif [ -n "$left" ]; then fail cluster-stopped-clean "left behind:$left"
  else pass cluster-stopped-clean "$(grep -o 'stopped in [0-9.]* s' "$logdir/inside.log")"; fi

  # Interrupted while a job runs: SIGTERM to cluster.sh run must still end the job and stop
  # everything.
  if selected cluster-interrupted-clean; then
    "$cluster" run -- bash -c 'srun -N 2 -n 2 sleep 300' >"$logdir/interrupt.log" 2>&1 &
    run_pid=$!
    running=0
    for _ in $(seq 600); do
      [ -s "$state/env" ] && [ "$(SLURM_CONF=$state/etc/slurm.conf squeue -h -t R 2>/dev/null | wc -l)" -ge 1 ] &&
        { running=1; break; }
      kill -0 $run_pid 2>/dev/null || break
      sleep 0.1
    done
    pids=$(cluster_processes | tr '\n' ' ')
    kill -TERM $run_pid
    wait $run_pid
    rc=$?
    left=$(left_behind "$pids")
    if [ "$running" = 0 ]; then fail cluster-interrupted-clean "the job never ran" "$logdir/interrupt.log"
    elif [ "$rc" != 143 ] || [ -n "$left" ]; then
      fail cluster-interrupted-clean "exit $rc (want 143), left behind:${left:- nothing}" "$logdir/interrupt.log"
    else pass cluster-interrupted-clean "$(echo $pids | wc -w) processes, all gone"; fi
  fi
  summary
  exit
fi

# ---- inside: the checks, on a cluster that is up -------------------------------------------------
[ -n "${SLURM_CONF:-}" ] && [ -s "$SLURM_CONF" ] || { echo "FAIL cluster: SLURM_CONF is not set to a cluster's slurm.conf"; exit 1; }
MPRUN=$build/launcher/mprun
HELLO=$build/examples/hello
CLIENT=$build/test/launcher/mprun_test_client
for prog in "$MPRUN" "$HELLO" "$CLIENT"; do
  [ -x "$prog" ] || make -C "$build" "${prog#"$build"/}" >/dev/null 2>&1
done
# On the shared file system, so the nodes see it at the same path.
T=$(mktemp -d /tmp/mpr-cluster-checks.XXXXXX)
# shellcheck disable=SC2034 # read by the harness (log_for)
h_logdir=$T
trap 'rm -rf "$T"' EXIT

# batch NAME SECS SBATCH_OPTS... -- BODY: runs BODY as a batch script and waits for the job
# (polling scontrol: sbatch --wait polls every few seconds); sets rc (the job's exit status, 124
# when it did not end within SECS and was cancelled), took and out (its output).
batch() {
  local name=$1 secs=$2 opts=() id t0 info state
  shift 2
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  printf '#!/bin/bash\n%s\n' "$1" >"$T/$name.sh"
  t0=$(date +%s%N)
  rc=1
  out=""
  id=$(sbatch --parsable -J "$name" -D "$T" -o "$T/$name.out" "${opts[@]}" "$T/$name.sh" 2>"$T/$name.sbatch.log")
  id=${id%%;*}
  if [ -n "$id" ]; then
    while :; do
      info=$(scontrol -o show job "$id" 2>/dev/null)
      state=$(sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' <<<"$info")
      case $state in PENDING | CONFIGURING | RUNNING | COMPLETING | "") ;; *) break ;; esac
      if [ $((($(date +%s%N) - t0) / 1000000000)) -ge "$secs" ]; then
        scancel "$id" 2>/dev/null
        state=TIMEOUT
        break
      fi
      sleep 0.2
    done
    # ExitCode=status:signal
    if [ "$state" = TIMEOUT ]; then rc=124
    else
      rc=$(sed -n 's/.* ExitCode=\([0-9]*\):\([0-9]*\).*/\1 \2/p' <<<"$info")
      # shellcheck disable=SC2086
      set -- $rc
      rc=$(( ${2:-0} > 0 ? 128 + $2 : ${1:-1} ))
    fi
  fi
  took_ms=$((($(date +%s%N) - t0) / 1000000))
  took=$(awk -v ms="$took_ms" 'BEGIN { printf "%.1f", ms / 1000 }')
  out=$(cat "$T/$name.out" 2>/dev/null)
}
# handoff: "" when $out has mprun's srun line, else a note for a FAIL reason.
handoff() { grep -q "^$spans" <<<"$out" || echo "; no '${spans%% running*}' line"; }
# layout PMIX_RANK-LINES: "host:count,host:count" of lines "host rank", in node order.
layout() { awk '{ n[$1]++ } END { for (h in n) printf "%s:%d\n", h, n[h] }' | sort | paste -sd, -; }

stage "nodes"
if selected cluster-nodes-idle; then
  s=$(sinfo -h -N -o '%N %T %c' 2>&1)
  if [ "$(echo "$s" | grep -c -E '^n[12] idle [0-9]+$')" = 2 ]; then pass cluster-nodes-idle "$(echo $s)"
  else fail cluster-nodes-idle "sinfo: $s"; fi
fi

if selected cluster-node-identity; then
  # Each task: its hostname, then its IPv4 addresses ("lo 127.0.0.1/8 eth0 10.x.y.1/24").
  log=$(log_for cluster-node-identity)
  timed_run 60 srun --mpi=pmix -N 2 -n 2 sh -c \
    'echo "$(hostname) $(ip -4 -o addr show | awk "{ print \$2, \$4 }" | tr "\n" " ")"' \
    >"$log" 2>&1
  want=""
  for n in n1 n2; do
    addr=$(sed -n "s/^NodeName=$n .*NodeAddr=\([^ ]*\).*/\1/p" "$SLURM_CONF")
    want+="$n lo 127.0.0.1/8 eth0 $addr/24 "$'\n'
  done
  got=$(sort "$log" | sed 's/ *$/ /')
  if [ "$rc" = 0 ] && [ "$got"$'\n' = "$want" ]; then pass cluster-node-identity "$(echo $got)"
  else fail cluster-node-identity "exit $rc; got '$(echo $got)', want '$(echo $want)'" "$log"; fi
fi

if selected cluster-pmix-locality; then
  # PMIx's local peers are what MPR uses for node locality (never the shared /dev/shm).
  log=$(log_for cluster-pmix-locality)
  timed_run 60 srun --mpi=pmix -N 2 -n 4 --ntasks-per-node=2 "$CLIENT" modex >"$log" 2>&1
  n_ok=$(grep -c -E '^rank [0-3] of 4: modex ok \(local_size 2\)$' "$log")
  if [ "$rc" = 0 ] && [ "$n_ok" = 4 ]; then pass cluster-pmix-locality
  else fail cluster-pmix-locality "exit $rc, $n_ok of 4 ranks saw 4 ranks, 2 of them local" "$log"; fi
fi

stage "mprun inside sbatch"
rankprog='echo "$(hostname) $PMIX_RANK ${SLURM_PROCID-none}"'
spans='mprun: allocation spans 2 nodes; running the job with: srun --mpi=pmix '
if selected cluster-mprun-2-per-node; then
  # c1: -N 2 -n 4 with 2 tasks per node (on 4-CPU nodes Slurm would otherwise give 3+1).
  batch mprun-2x2 120 -N 2 -n 4 --ntasks-per-node=2 -- \
    "$MPRUN --verbose sh -c '$rankprog'"
  got=$(grep -E '^n[12] [0-9]+ ' <<<"$out" | sort -k2 -n | awk '{ print $1, $2 }' | paste -sd, -)
  if [ "$rc" = 0 ] && [ "$got" = "n1 0,n1 1,n2 2,n2 3" ] &&
    grep -q "^$spans.*--ntasks=4 " <<<"$out"
  then pass cluster-mprun-2-per-node "$took s"
  else fail cluster-mprun-2-per-node "exit $rc, ranks '$got' (want n1 0,n1 1,n2 2,n2 3)$(handoff)" "$T/mprun-2x2.out"; fi
fi

if selected cluster-mprun-follows-allocation; then
  # Plain -N 2 -n 4: whatever layout Slurm chose (SLURM_TASKS_PER_NODE), mprun's ranks follow it.
  batch mprun-alloc 120 -N 2 -n 4 -- \
    "echo \"layout \$SLURM_TASKS_PER_NODE\"; $MPRUN sh -c '$rankprog'"
  alloc=$(sed -n 's/^layout //p' <<<"$out")
  want=$(awk -v l="$alloc" 'BEGIN { n = split(l, p, ","); k = 1
    for (i = 1; i <= n; i++) { c = p[i]; r = 1
      if (match(c, /\(x[0-9]+\)/)) { r = substr(c, RSTART + 2, RLENGTH - 3); c = substr(c, 1, RSTART - 1) }
      for (j = 0; j < r; j++) { printf "%sn%d:%d", (k > 1 ? "," : ""), k, c; k++ } } }')
  got=$(grep -E '^n[12] [0-9]+ ' <<<"$out" | layout)
  if [ "$rc" = 0 ] && [ -n "$alloc" ] && [ "$got" = "$want" ]; then pass cluster-mprun-follows-allocation "$alloc: $got"
  else fail cluster-mprun-follows-allocation "exit $rc, allocation '$alloc' (want $want), ranks $got" "$T/mprun-alloc.out"; fi
fi

if selected cluster-mprun-one-rank; then
  # c2: a 1-task allocation: mprun's own launcher, one rank, without the batch step's identity.
  batch mprun-1 60 -n 1 -- "$MPRUN --verbose sh -c '$rankprog'"
  ranks=$(grep -c -E '^n[12] [0-9]+ ' <<<"$out")
  if [ "$rc" = 0 ] && [ "$ranks" = 1 ] && grep -q -E '^n[12] 0 none$' <<<"$out" &&
    ! grep -q 'allocation spans' <<<"$out"
  then pass cluster-mprun-one-rank
  else fail cluster-mprun-one-rank "exit $rc, $ranks ranks (want 1, rank 0, no SLURM_PROCID)" "$T/mprun-1.out"; fi
fi

if selected cluster-mprun-exit-status; then
  # mprun's status is srun's: the highest exit code of any rank.
  batch mprun-exit 120 -N 2 -n 2 -- \
    "$MPRUN --verbose sh -c 'if [ \$PMIX_RANK = 1 ]; then sleep 0.5; exit 3; fi'; echo mprun-rc=\$?"
  if [ "$rc" = 0 ] && grep -q '^mprun-rc=3$' <<<"$out" && grep -q "^$spans" <<<"$out"; then
    pass cluster-mprun-exit-status
  else fail cluster-mprun-exit-status "job exit $rc, $(grep mprun-rc <<<"$out")$(handoff)" "$T/mprun-exit.out"; fi
fi

if selected cluster-mprun-bad-exit-ends-job; then
  # One rank fails while the other would run for a minute: --kill-on-bad-exit ends the job.
  batch mprun-bad-exit 120 -N 2 -n 2 -- \
    "$MPRUN --verbose sh -c 'if [ \$PMIX_RANK = 1 ]; then exit 3; fi; exec sleep 60'; echo mprun-rc=\$?"
  mrc=$(sed -n 's/^mprun-rc=//p' <<<"$out")
  if [ "$rc" = 0 ] && [ -n "$mrc" ] && [ "$mrc" != 0 ] && [ "${took%.*}" -lt 30 ] &&
    grep -q "^$spans.*--kill-on-bad-exit=1" <<<"$out"; then
    pass cluster-mprun-bad-exit-ends-job "mprun exit $mrc after $took s"
  else fail cluster-mprun-bad-exit-ends-job "job exit $rc after $took s, mprun-rc=$mrc$(handoff)" "$T/mprun-bad-exit.out"; fi
fi

if selected cluster-mprun-timeout; then
  batch mprun-timeout 120 -N 2 -n 2 -- "$MPRUN --verbose --timeout 2 sleep 60; echo mprun-rc=\$?"
  if grep -q '^mprun-rc=124$' <<<"$out" && grep -q '^mprun: job timed out after 2 s (--timeout)' <<<"$out" &&
    grep -q "^$spans" <<<"$out" &&
    [ "${took%.*}" -lt 30 ]
  then pass cluster-mprun-timeout "$took s"
  else fail cluster-mprun-timeout "after $took s: $(grep -E 'mprun' <<<"$out" | tr '\n' ' ')$(handoff)" "$T/mprun-timeout.out"; fi
fi

stage "MPI programs"
if selected cluster-mprun-one-node-mpi; then
  # One node of two tasks: mprun's own launcher, shared memory between the ranks.
  batch hello-1node 120 -N 1 -n 2 -- "$MPRUN $HELLO"
  n=$(grep -c -E '^Hello from rank [01] of 2 on n[12]$' <<<"$out")
  if [ "$rc" = 0 ] && [ "$n" = 2 ]; then pass cluster-mprun-one-node-mpi "$took s"
  else fail cluster-mprun-one-node-mpi "exit $rc, $n of 2 hello lines" "$T/hello-1node.out"; fi
fi

if selected cluster-pmi2-warning; then
  # srun --mpi=pmi2: no PMIx server; each task says so once and runs as a singleton.
  log=$(log_for cluster-pmi2-warning)
  timed_run 60 srun --mpi=pmi2 -N 2 -n 2 "$HELLO" >"$log" 2>&1
  w=$(grep -c '^mpr: MPI_Init: this process is task [01] of a Slurm step of 2 tasks (srun --mpi=pmi2) but found no PMIx server; it runs as a singleton' "$log")
  s=$(grep -c '^Hello from rank 0 of 1 on n[12]$' "$log")
  if [ "$rc" = 0 ] && [ "$w" = 2 ] && [ "$(grep -c '^mpr' "$log")" = 2 ] && [ "$s" = 2 ]; then
    pass cluster-pmi2-warning
  else fail cluster-pmi2-warning "exit $rc, $w warning lines and $s singletons (want 2 each)" "$log"; fi
fi

# Across nodes: these need a backend between the nodes (tcp).
if selected cluster-srun-hello; then
  log=$(log_for cluster-srun-hello)
  timed_run 120 "$here/srun-2nodes.sh" -n 4 "$HELLO" >"$log" 2>&1
  n=$(grep -c -E '^Hello from rank [0-3] of 4 on n[12]$' "$log")
  if [ "$rc" = 0 ] && [ "$n" = 4 ]; then pass cluster-srun-hello "$took s"
  else fail cluster-srun-hello "exit $rc, $n of 4 hello lines; $(grep -m1 '^mpr' "$log")" "$log"; fi
fi

if selected cluster-mprun-hello; then
  batch mprun-hello 120 -N 2 -n 4 --ntasks-per-node=2 -- "$MPRUN $HELLO"
  n=$(grep -c -E '^Hello from rank [0-3] of 4 on n[12]$' <<<"$out")
  if [ "$rc" = 0 ] && [ "$n" = 4 ] && [ "$(grep -c -E '^Hello from rank [0-3] of 4 on n1$' <<<"$out")" = 2 ]; then
    pass cluster-mprun-hello "$took s"
  else fail cluster-mprun-hello "exit $rc, $n of 4 hello lines; $(grep -m1 '^mpr' <<<"$out")" "$T/mprun-hello.out"; fi
fi


# The job suite and the failure checks across the nodes.
# shellcheck source=test/slurm/cluster-jobs.sh
. "$here/cluster-jobs.sh"

summary
