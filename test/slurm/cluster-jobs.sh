# Sourced by run-cluster-stages.sh --inside (the cluster is up, SLURM_CONF exported, the harness
# loaded, $build and $here set): MPI jobs across the two nodes.
#   cluster-backends      rank 0's MPR_VERBOSE report: shm to its node's peer, tcp to the others
#   jobs/<job> -n 4       the job manifest's "cluster" entries at 4 ranks, 2 per node, under srun
#   cluster-lost-rank     a rank on n2 killed by SIGKILL while ranks on n1 wait on it (srun without
#                         --kill-on-bad-exit, so MPR itself must notice): the job ends non-zero
#                         within 10 s and a line names the lost rank and its node

stage "MPI jobs across nodes (srun --mpi=pmix, 4 ranks, 2 per node)"

if selected cluster-backends; then
  log=$(log_for cluster-backends)
  timed_run 120 env MPR_VERBOSE=1 "$here/srun-2nodes.sh" -n 4 "$build/examples/hello" >"$log" 2>&1
  if [ "$rc" = 0 ] && grep -q '^ *shm: peers 1;' "$log" && grep -q '^ *tcp: peers 2-3;' "$log"; then
    pass cluster-backends "rank 0: shm to rank 1, tcp to ranks 2-3"
  else
    fail cluster-backends "exit $rc; want rank 0 to report 'shm: peers 1' and 'tcp: peers 2-3'" "$log"
  fi
fi

saved_launcher=("${launcher[@]}")
saved_env=("${job_env[@]}")
launcher=("$here/srun-2nodes.sh")
job_env=(MPR_TEST_RUN=1)
manifest_suite jobs cluster "$build" 4
launcher=("${saved_launcher[@]}")
job_env=("${saved_env[@]}")

if selected cluster-lost-rank; then
  log=$(log_for cluster-lost-rank)
  timed_run 60 env FAIL_SIGKILL_VICTIM=3 srun --mpi=pmix -N 2 -n 4 --ntasks-per-node=2 \
    "$build/test/jobs/fail_sigkill" >"$log" 2>&1
  end=$(date +%s.%N)
  killed=$(sed -n 's/^fail_sigkill: rank 3 raises SIGKILL at \([0-9.]*\).*/\1/p' "$log" | head -n 1)
  after=$(awk -v k="${killed:-0}" -v e="$end" 'BEGIN { printf "%.1f", e - k }')
  if [ -z "$killed" ]; then
    fail cluster-lost-rank "rank 3 never raised SIGKILL (exit $rc)" "$log"
  elif [ "$rc" = 0 ]; then
    fail cluster-lost-rank "the job exited 0" "$log"
  elif awk -v a="$after" 'BEGIN { exit !(a > 10) }'; then
    fail cluster-lost-rank "the job ended $after s after the kill (limit 10 s)" "$log"
  elif ! grep -q 'connection to rank 3 on node n2 .*lost' "$log"; then
    fail cluster-lost-rank "no line names rank 3 on node n2 as lost" "$log"
  else
    pass cluster-lost-rank "ended $after s after the kill, exit $rc: $(grep -m1 -o 'connection to rank 3 on node n2[^;]*' "$log" | cut -c1-80)"
  fi
fi
