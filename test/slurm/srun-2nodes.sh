#!/bin/bash
# srun-2nodes.sh -n N PROG [ARGS...]: runs PROG as N ranks spread over both nodes of the test
# cluster (test/slurm/cluster.sh), from the root namespace: srun --mpi=pmix with -N 2 (1 when N
# is 1), ceil(N/2) tasks per node (Slurm would otherwise fill n1 first: -N 2 -n 4 gets 3+1 on
# nodes of 4 CPUs) and --kill-on-bad-exit=1. It takes "-n N prog args" like mprun, so it can
# stand in for the launcher of test/lib/harness.sh (see test/README.md):
#
#   launcher=(test/slurm/srun-2nodes.sh)   # with SLURM_CONF exported, e.g. under cluster.sh run
#
# SLURM_CONF defaults to the cluster's default state directory. The working directory and PROG
# must be at the same path on the nodes; they are (the nodes share this machine's file systems).
set -u
if [ "${1:-}" != -n ] || [ $# -lt 3 ] || ! [[ $2 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: srun-2nodes.sh -n N prog [args...]" >&2
  exit 2
fi
n=$2
shift 2
export SLURM_CONF=${SLURM_CONF:-${MPR_SLURM_STATE:-/tmp/mpr-slurm-cluster}/etc/slurm.conf}
nodes=$((n < 2 ? n : 2))
exec srun --mpi=pmix --nodes="$nodes" --ntasks="$n" --ntasks-per-node=$(((n + 1) / 2)) \
  --kill-on-bad-exit=1 "$@"
