#!/usr/bin/env bash
# The two-VM cluster's self-test (run-in-vm-cluster.sh --selftest; the cluster suite runs it
# first): runs on n1 with the cluster up. Slurm starts a task on each node, and
# ibv_rc_pingpong moves data over RDMA between the two hosts' rxe devices.
set -u -o pipefail
fail=0
echo "=== srun -N 2 hostname"
out=$(srun -N 2 -n 2 hostname | sort | tr '\n' ' ')
echo "$out"
[ "$out" = "n1 n2 " ] || { echo "want 'n1 n2'"; fail=1; }
# The server side runs on n2 through Slurm; each side uses its own host's GID index.
pp() { # pp ARGS...: ibv_rc_pingpong server on n2, client on n1
  srun -N 1 -n 1 -w n2 bash -c 'exec timeout 120 ibv_rc_pingpong -d rxe0 -g "$(cat /run/rdma-gid-index)" "$@"' \
    pp "$@" >/tmp/pp-server.log 2>&1 &
  local s=$! i
  # The client gives up at once while the server (started by Slurm, a few seconds) does not
  # listen yet; a refused connection does not use up the server's one connection.
  local out rc
  for i in $(seq 60); do
    out=$(timeout 120 ibv_rc_pingpong -d rxe0 -g "$RDMA_GID_INDEX" "$@" "$RDMA_PEER_IP" 2>&1)
    rc=$?
    case $out in *"Couldn't connect"*) kill -0 $s 2>/dev/null && { sleep 0.5; continue; } ;; esac
    break
  done
  echo "$out"
  [ "$rc" = 0 ] || fail=1
  wait $s || { fail=1; echo "server on n2 failed:"; cat /tmp/pp-server.log; }
}
echo "=== ibv_rc_pingpong n1 -> n2 (4 KiB x 1000)"
pp
echo "=== ibv_rc_pingpong n1 -> n2 (64 KiB x 200)"
pp -s 65536 -n 200
echo
[ $fail = 0 ] && echo "vm-cluster selftest: PASS" || echo "vm-cluster selftest: FAIL"
exit $fail
