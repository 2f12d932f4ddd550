#!/usr/bin/env bash
# Runs on n1 of the two-VM soft-RoCE cluster (started by run-verbs-cluster-suite.sh; see there)
# with Slurm up. Prints one "PASS name" / "FAIL name: why" line per test. Environment from the
# host script: SUITE_BUILD (build tree, shared at the same path), SUITE_LOGS, SUITE_CTL (job
# tables, guest scripts), SUITE_RANKS; from the cluster: SLURM_CONF, RDMA_*.
set -u
B=$SUITE_BUILD
L=$SUITE_LOGS
export MPR_TEST_RUN=1
failed=0
pass() { echo "PASS $1${2:+ ($2)}"; }
fail() { echo "FAIL $1: $2"; failed=1; }
now() { date +%s.%N; }
since() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.1f", e - s }'; }
logname() { printf '%s/%s.log' "$L" "$(printf '%s' "$1" | tr -c 'A-Za-z0-9._=-' '_')"; }
cd /tmp || exit 1

echo "# rdma-vm-cluster: kernel $(uname -r), device ${RDMA_DEV:-?} (GID index ${RDMA_GID_INDEX:-?}) on n1 $RDMA_IP and n2 $RDMA_PEER_IP, $(nproc) vCPU(s) each"

# ---- 1. the cluster's self-test ------------------------------------------------------------------
t=$(now)
log=$(logname selftest)
if bash "$SUITE_CTL/selftest.sh" >"$log" 2>&1; then
  pass selftest "srun on n1 and n2, ibv_rc_pingpong between them; $(since "$t") s"
  grep -h 'usec/iter' "$log" | sed 's/^/# ibv_rc_pingpong n1<->n2: /'
else
  fail selftest "$(grep -m1 -i 'fail\|error\|want' "$log" | cut -c1-160) (log $log)"
fi

# srun_n N: srun for N ranks, one per host (2) or two per host (4)
srun_n() {
  local n=$1 per=$(( $1 > 2 ? ($1 + 1) / 2 : 1 ))
  echo srun --mpi=pmix -N 2 -n "$n" --ntasks-per-node="$per"
}

# ---- 2. the backends each peer gets ----------------------------------------------------------------
t=$(now)
log=$(logname backends)
# shellcheck disable=SC2046
timeout -k 10 300 env MPR_VERBOSE=1 $(srun_n 4) "$B/examples/hello" </dev/null >"$log" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q '^ *shm: peers 1;' "$log" && grep -q '^ *verbs: peers 2-3;' "$log"; then
  pass backends "rank 0: shm to rank 1 on n1, verbs to ranks 2-3 on n2; $(since "$t") s"
else
  fail backends "exit $rc; want rank 0 to report 'shm: peers 1' and 'verbs: peers 2-3' (log $log)"
fi

# ---- 3. the job suite ------------------------------------------------------------------------------
run_table() {  # run_table TABLE DIR KIND
  local table=$1 dir=$2 kind=$3 prog spec args n name log rc t
  while read -r prog spec args; do
    [ -n "$prog" ] || continue
    for n in $SUITE_RANKS; do
      if [[ $spec == *+ ]]; then [ "$n" -ge "${spec%+}" ] || continue; else [ "$n" -eq "$spec" ] || continue; fi
      name="np$n/${kind}$prog"
      [ -x "$dir/$prog" ] || { fail "$name" "not built: $dir/$prog"; continue; }
      log=$(logname "$name")
      # One rank per host: verbs is the only way across (self for a rank's own messages).
      # Two per host: the backends are chosen per peer (shm within a host, verbs across).
      local btl=()
      [ "$n" = 2 ] && btl=(MPR_BTL=self,verbs)
      t=$(now)
      # shellcheck disable=SC2046,SC2086
      timeout -k 10 600 env "${btl[@]}" $(srun_n "$n") "$dir/$prog" ${args//%N/$n} </dev/null >"$log" 2>&1
      rc=$?
      if [ "$rc" -ne 0 ]; then
        fail "$name" "exit $rc after $(since "$t") s$([ "$rc" = 124 ] && echo ' (timed out)') (log $log)"
      elif [ "$kind" != "examples/" ] && ! grep -q '^OK ' "$log"; then
        fail "$name" "exit 0 but no OK line (log $log)"
      else
        pass "$name" "$(since "$t") s"
      fi
      [ "$prog" = pingpong ] && awk '$1 ~ /^(0|8|4096|65536|1048576)$/' "$log" |
        sed "s|^ *|# pingpong np$n n1<->n2 over verbs (bytes iters latency_us MB/s): |"
    done
  done <"$table"
}
t_jobs=$(now)
run_table "$SUITE_CTL/jobs" "$B/test/jobs" ""
run_table "$SUITE_CTL/examples" "$B/examples" "examples/"
echo "# rdma-vm-cluster: MPI jobs across the hosts took $(since "$t_jobs") s"

# mprun inside a 2-node allocation hands the job to srun.
t=$(now)
log=$(logname mprun-in-allocation)
timeout -k 10 300 salloc -N 2 -n 4 "$B/launcher/mprun" -n 4 "$B/examples/hello" </dev/null >"$log" 2>&1
rc=$?
hosts=$(grep -o 'on n[12]' "$log" | sort -u | tr '\n' ' ')
if [ "$rc" = 0 ] && [ "$hosts" = "on n1 on n2 " ]; then
  pass mprun-in-allocation "salloc -N 2 mprun -n 4: ranks on n1 and n2; $(since "$t") s"
else
  fail mprun-in-allocation "exit $rc, hosts seen '$hosts' (log $log)"
fi

# ---- 4. a rank on n2 dies while n1's ranks wait on it ---------------------------------------------
# srun without --kill-on-bad-exit. Whoever notices first ends the job: Slurm's PMIx plugin
# (the task's PMIx connection drops; "srun: error: n2: task 3: Killed") or MPR (its probes of
# rank 3's queue pair go unacknowledged: "verbs: connection to rank 3 on node n2 ... lost").
# The output is stamped with n1's clock as it arrives (the two VMs' clocks need not agree).
t=$(now)
log=$(logname lost-rank)
# shellcheck disable=SC2046
timeout -k 10 120 env FAIL_SIGKILL_VICTIM=3 $(srun_n 4) "$B/test/jobs/fail_sigkill" </dev/null 2>&1 |
  while IFS= read -r line; do printf '%s %s\n' "$(now)" "$line"; done >"$log"
rc=${PIPESTATUS[0]}
end=$(now)
killed=$(awk '/fail_sigkill: rank 3 raises SIGKILL/ { print $1; exit }' "$log")
after=$(awk -v k="${killed:-0}" -v e="$end" 'BEGIN { printf "%.1f", e - k }')
if [ -z "$killed" ]; then
  fail lost-rank "rank 3 never raised SIGKILL (exit $rc; log $log)"
elif [ "$rc" = 0 ]; then
  fail lost-rank "the job exited 0 (log $log)"
elif awk -v a="$after" 'BEGIN { exit !(a > 10) }'; then
  fail lost-rank "the job ended $after s after the kill (limit 10 s; log $log)"
elif ! grep -q -E 'connection to rank 3 on node n2 .*lost|n2: task 3: Killed' "$log"; then
  fail lost-rank "no line names rank 3 on node n2 as lost (log $log)"
else
  pass lost-rank "ended $after s after the kill, exit $rc: $(grep -m1 -o -E 'connection to rank 3 on node n2[^:]*|srun: error: n2: task 3: Killed' "$log" | cut -c1-90)"
fi
exit $failed
