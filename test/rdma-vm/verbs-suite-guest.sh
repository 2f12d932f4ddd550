#!/usr/bin/env bash
# Runs INSIDE the soft-RoCE VM (started by run-verbs-suite.sh; see there). Prints one
# "PASS name" / "FAIL name: why" line per test. Environment from the host script:
#   SUITE_BUILD (build tree, shared at the same path), SUITE_LOGS, SUITE_CTL (job tables),
#   SUITE_RANKS; from the VM: RDMA_DEV, RDMA_GID_INDEX.
set -u
B=$SUITE_BUILD
L=$SUITE_LOGS
# Sockets and FIFOs cannot live on the 9p share: PMIx and friends use the VM's own /tmp.
export TMPDIR=/tmp PMIX_SYSTEM_TMPDIR=/tmp PMIX_SERVER_TMPDIR=/tmp MPR_TEST_RUN=1
failed=0
pass() { echo "PASS $1${2:+ ($2)}"; }
fail() { echo "FAIL $1: $2"; failed=1; }
now() { date +%s.%N; }
since() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.1f", e - s }'; }
logname() { printf '%s/%s.log' "$L" "$(printf '%s' "$1" | tr -c 'A-Za-z0-9._=-' '_')"; }

echo "# rdma-vm: kernel $(uname -r), device ${RDMA_DEV:-?}, GID index ${RDMA_GID_INDEX:-?}, $(nproc) vCPUs"

# ---- 1. the [verbs] Catch2 tests ---------------------------------------------------------------
# One PASS/FAIL per test case from the XML report. Test names contain ':' (which would end the
# name in a FAIL line), so it becomes ' -'.
t=$(now)
xml=$L/verbs-tests.xml
(cd /tmp && timeout -k 10 1200 "$B/test/verbs/mpr_verbs_tests" -r xml -o "$xml" -d yes) \
  >"$L/verbs-tests.log" 2>&1
rc=$?
if [ "$rc" = 77 ]; then
  fail loopback "no RDMA device inside the VM: $(cat "$L/verbs-tests.log")"
elif [ ! -s "$xml" ]; then
  fail loopback "the test binary did not run (exit $rc; log $L/verbs-tests.log)"
else
  awk '
    function attr(line, key) {
      if (!match(line, key "=\"[^\"]*\"")) return ""
      return substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 3)
    }
    /<TestCase / { name = attr($0, "name"); gsub(/:/, " -", name); gsub(/&amp;/, "\\&", name)
                   why = ""; open = 1; next }
    open && why == "" && /<Expression success="false"/ { why = attr($0, "filename") ":" attr($0, "line") }
    open && why == "" && /<(Exception|FatalErrorCondition)/ { why = attr($0, "filename") ":" attr($0, "line") " exception" }
    open && /<OverallResult success="true"/ { print "PASS loopback/" name; open = 0 }
    open && /<OverallResult success="false"/ { print "FAIL loopback/" name ": " (why == "" ? "failed" : why); open = 0 }
    END { if (open) print "FAIL loopback/" name ": the test binary died inside this test" }
  ' "$xml" | tee "$L/verbs-tests.results"
  grep -q '^FAIL' "$L/verbs-tests.results" && failed=1
  [ "$rc" = 0 ] || grep -q '^FAIL' "$L/verbs-tests.results" ||
    fail loopback "exit $rc although every test case passed"
  grep -h '^verbs timing:' "$L/verbs-tests.log" | sed 's/^/# /'
fi
echo "# rdma-vm: [verbs] tests took $(since "$t") s"

# ---- 2. MPI jobs over verbs --------------------------------------------------------------------
mprun=$B/launcher/mprun
run_table() {  # run_table TABLE DIR KIND [VAR=VALUE...]: extra environment for every run
  local table=$1 dir=$2 kind=$3 prog spec args n name log took rc t
  local extra=("${@:4}")
  while read -r prog spec args; do
    [ -n "$prog" ] || continue
    for n in $SUITE_RANKS; do
      if [[ $spec == *+ ]]; then [ "$n" -ge "${spec%+}" ] || continue; else [ "$n" -eq "$spec" ] || continue; fi
      name="np$n/${kind}$prog"
      [ -x "$dir/$prog" ] || { fail "$name" "not built: $dir/$prog"; continue; }
      log=$(logname "$name")
      t=$(now)
      # shellcheck disable=SC2086
      (cd /tmp && env "${extra[@]}" MPR_BTL=self,verbs timeout -k 10 600 "$mprun" -n "$n" "$dir/$prog" ${args//%N/$n}) \
        </dev/null >"$log" 2>&1
      rc=$?
      took=$(since "$t")
      if [ "$rc" -ne 0 ]; then
        fail "$name" "exit $rc after $took s$([ "$rc" = 124 ] && echo ' (timed out)') (log $log)"
      elif [ "$kind" != "examples/" ] && ! grep -q '^OK ' "$log"; then
        fail "$name" "exit 0 but no OK line (log $log)"
      else
        pass "$name" "$took s"
      fi
      [ "$prog" = pingpong ] && awk '$1 ~ /^(0|8|4096|65536|1048576)$/' "$log" |
        sed "s|^ *|# pingpong np$n over verbs (bytes iters latency_us MB/s): |"
    done
  done <"$table"
}
if [ ! -x "$mprun" ]; then
  [ -s "$SUITE_CTL/jobs" ] && fail jobs "the build has no launcher/mprun"
else
  t_jobs=$(now)
  run_table "$SUITE_CTL/jobs" "$B/test/jobs" ""
  run_table "$SUITE_CTL/examples" "$B/examples" "examples/"
  # One-sided jobs once more without the node-wide mapping: lock and accumulate words then
  # move by the device's atomics (the path windows spanning several nodes take).
  grep '^job_rma' "$SUITE_CTL/jobs" >"$L/rma-jobs" || true
  [ -s "$L/rma-jobs" ] && run_table "$L/rma-jobs" "$B/test/jobs" "rma-device/" MPR_RMA_PATH=btl
  echo "# rdma-vm: MPI jobs over verbs took $(since "$t_jobs") s"
fi
exit $failed
