# MPR's test harness: reporting, time-limited runs and the job manifest. Sourced (bash) by
# test/run-tests.sh, test/launcher/run-launcher-tests.sh and test/jobs/run-manifest.sh (what
# `make check` runs), so every PASS/FAIL/SKIP line, every time limit and every job launch is
# produced the same way. See test/README.md.
#
# The caller may set, before or after sourcing:
#   h_only     extended regex; selected NAME is false for names it does not match (default: all)
#   h_logdir   where log_for puts one log per test (needed by log_for, launch, run_entry)
#   launcher   array: the command that takes "-n N prog args" (needed by launch)
#   job_env    array of VAR=value for every launch
#   timeout    seconds per launch when MPR_TEST_TIMEOUT is set; otherwise each manifest entry's
#              own limit, times h_limit_scale (2 under sanitizers)
# shellcheck shell=bash

h_pass=0
h_fail=0
h_skip=0
h_tail_lines=15
h_only=${h_only:-}
h_limit_scale=${h_limit_scale:-1}
h_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
h_manifest=${h_manifest:-$h_lib_dir/../jobs/manifest}

# ---- reporting ------------------------------------------------------------------------------
selected() { [ -z "$h_only" ] || [[ $1 =~ $h_only ]]; }
log_for() { printf '%s/%s.log' "$h_logdir" "$(printf '%s' "$1" | tr -c 'A-Za-z0-9._=-' '_')"; }
h_stage_t0=$(date +%s)
stage() { echo "# $* [at $(($(date +%s) - h_stage_t0)) s]"; }
# pass NAME [NOTE]
pass() { h_pass=$((h_pass + 1)); echo "PASS $1${2:+ ($2)}"; }
# skip NAME REASON
skip() { h_skip=$((h_skip + 1)); echo "SKIP $1: $2"; }
# fail NAME REASON [LOG]: the reason, then the end of the log, indented.
fail() {
  h_fail=$((h_fail + 1))
  echo "FAIL $1: $2"
  if [ -n "${3:-}" ] && [ -s "$3" ]; then
    tail -n "$h_tail_lines" "$3" | cut -c1-300 | sed 's/^/    | /'
    echo "    (full log: $3)"
  fi
}
# fail_build NAME REASON LOG: like fail, but shows the log's first error lines (with make -j2 -k
# the end of the log is rarely where the error is).
fail_build() {
  h_fail=$((h_fail + 1))
  echo "FAIL $1: $2"
  grep -m 12 -E 'error|Error [0-9]|undefined reference' "$3" | cut -c1-300 | sed 's/^/    | /'
  echo "    (full log: $3)"
}
# summary: "N passed, N failed[, N skipped]"; returns non-zero if anything failed.
summary() {
  if [ "$h_skip" -gt 0 ]; then
    echo "$h_pass passed, $h_fail failed, $h_skip skipped"
  else
    echo "$h_pass passed, $h_fail failed"
  fi
  [ "$h_fail" -eq 0 ]
}

# ---- time-limited runs ----------------------------------------------------------------------
now() { date +%s.%N; }
elapsed_since() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.1f", e - s }'; }
# timed_run SECS CMD...: CMD under `timeout` (SIGKILL 5 s after the SIGTERM), in this shell, with
# the caller's redirections. Sets rc (124 and up: timed out), took (s, one decimal), took_ms.
timed_run() {
  local secs=$1 t0 t1; shift
  t0=$(date +%s%N)
  timeout -k 5 "$secs" "$@"
  rc=$?
  t1=$(date +%s%N)
  took_ms=$(((t1 - t0) / 1000000))
  took=$(awk -v ms="$took_ms" 'BEGIN { printf "%.1f", ms / 1000 }')
  return 0
}
# timed_out: the last timed_run used up its limit SECS (an exit code alone cannot tell).
timed_out() { awk -v t="$took" -v m="$1" 'BEGIN { exit !(t >= m - 1) }'; }

# relay_counted NAME SECS CMD...: runs a script that prints its own PASS/FAIL/SKIP lines (the
# launcher checks, the VM suite) and counts each as NAME/<its name>.
relay_counted() {
  local name=$1 secs=$2; shift 2
  selected "$name" || return 0
  local log; log=$(log_for "$name")
  timed_run "$secs" "$@" </dev/null >"$log" 2>&1
  local line seen_fail=0 seen=0 rest
  while IFS= read -r line; do
    case $line in
      "PASS "*) seen=$((seen + 1)); pass "$name/${line#PASS }" ;;
      "FAIL "*)
        seen=$((seen + 1)); seen_fail=1
        rest=${line#FAIL }
        fail "$name/${rest%%:*}" "$( [[ $rest == *:* ]] && echo "${rest#*: }" || echo failed)" ;;
      "SKIP "*) rest=${line#SKIP }; skip "$name/${rest%%:*}" "${rest#*: }" ;;
    esac
  done <"$log"
  if [ "$rc" -ne 0 ] && [ "$seen_fail" -eq 0 ]; then
    fail "$name" "exit $rc after $took s$([ "$rc" -ge 124 ] && echo ' (timeout?)')" "$log"
  elif [ "$seen" -eq 0 ] && [ "$rc" -eq 0 ]; then
    fail "$name" "printed no PASS/FAIL line" "$log"
  fi
}

# ---- Catch2 unit tests ----------------------------------------------------------------------
# run_unit PREFIX BIN SECS [env...]: one PASS/FAIL line per Catch2 test case, from its XML report.
run_unit() {
  local prefix=$1 bin=$2 secs=$3; shift 3
  local name; name=$prefix/$(basename "$bin")
  selected "$name" || return 0
  local xml log
  log=$(log_for "$name")
  xml=${log%.log}.xml
  echo "+ $* $bin -r xml -o $xml" >"$log"
  timed_run "$secs" env -C "$(dirname "$bin")" "$@" "$bin" -r xml -o "$xml" </dev/null >>"$log" 2>&1
  if [ "$rc" -eq 77 ] && [ ! -s "$xml" ]; then
    skip "$name" "$(grep -m1 '^SKIP' "$log" | sed 's/^SKIP [^:]*: //')"
    return
  fi
  if [ ! -s "$xml" ]; then
    fail "$name" "did not run (exit $rc)" "$log"
    return
  fi
  local results; results=$(awk -f "$h_lib_dir/../catch2-xml.awk" "$xml")
  local status tcname reason crashed="" ncases=0
  while IFS=$'\t' read -r status tcname reason; do
    [ -n "$status" ] || continue
    ncases=$((ncases + 1))
    case $status in
      PASS) pass "$name: $tcname" ;;
      FAIL) fail "$name: $tcname" "$reason" ;;
      INCOMPLETE) crashed=$tcname ;;
    esac
  done <<<"$results"
  if [ -n "$crashed" ]; then
    fail "$name: $crashed" "the binary died inside this test case (exit $rc); later test cases did not run" "$log"
  elif [ "$rc" -ne 0 ] && ! grep -q '^FAIL' <<<"$results"; then
    fail "$name" "exit $rc although every test case passed" "$log"
  elif [ "$ncases" -eq 0 ]; then
    fail "$name" "no test case ran" "$log"
  fi
}

# ---- MPI jobs -------------------------------------------------------------------------------
# Processes of BIN still alive (not zombies): a launcher must never leave ranks behind.
leftovers() {
  local pid
  for pid in $(pgrep -f -- "$1" 2>/dev/null); do
    [ "$pid" = "$$" ] && continue
    case $(ps -o stat= -p "$pid" 2>/dev/null) in Z*|"") ;; *) echo "$pid" ;; esac
  done
}
shm_entries() {
  local f
  for f in /dev/shm/mpr.*; do [ -e "$f" ] && echo "${f#/dev/shm/}"; done | sort
}

# launch NAME NRANKS SECS BIN [args...]: runs under the launcher with $job_env (plus $m_env when
# launched for a manifest entry), in $h_logdir; sets rc, took, log. NRANKS 0: no launcher.
launch() {
  local name=$1 n=$2 secs=$3 bin=$4; shift 4
  local -a cmd=("${launcher[@]}" -n "$n")
  [ "$n" = 0 ] && cmd=()
  log=$(log_for "$name")
  echo "+ ${job_env[*]} ${launch_env[*]} ${cmd[*]} $bin $*" >"$log"
  timed_run "$secs" env -C "$h_logdir" "${job_env[@]}" "${launch_env[@]}" "${cmd[@]}" "$bin" "$@" \
    </dev/null >>"$log" 2>&1
}
launch_env=()

# After a launch: no rank may outlive its job. Kills (by pid) and reports any that did.
check_leftovers() {
  local name=$1 bin=$2 pids
  pids=$(leftovers "$bin")
  [ -z "$pids" ] && return 0
  sleep 1
  pids=$(leftovers "$bin")
  [ -z "$pids" ] && return 0
  # shellcheck disable=SC2086
  kill -KILL $pids 2>/dev/null
  fail "$name: no processes left" "$(echo $pids | wc -w) process(es) of $(basename "$bin") still running after the launcher returned" "$log"
  return 1
}

# ---- the job manifest (test/jobs/manifest) --------------------------------------------------
# manifest_entries STAGE: the manifest's entries in STAGE, one per line, comments and skip
# directives dropped: name program ranks end limit stages env args...
manifest_entries() {
  awk -v st="$1" '
    /^[ \t]*(#|$)/ || $1 == "skip" { next }
    { n = split($6, s, ","); for (i = 1; i <= n; i++) if (s[i] == st) { print; next } }
  ' "$h_manifest"
}
# manifest_skip NAME STAGE: the reason the manifest gives for skipping NAME in STAGE, if any.
manifest_skip() {
  awk -v nm="$1" -v st="$2" '
    $1 == "skip" && $2 == nm && $3 == st { $1 = $2 = $3 = ""; sub(/^ +/, ""); print; exit }
  ' "$h_manifest"
}
# manifest_lookup NAME: sets m_name m_prog m_ranks m_end m_limit m_stages m_env m_args from
# NAME's first entry; false if there is none.
manifest_lookup() {
  local line
  line=$(awk -v nm="$1" '$1 == nm && !/^[ \t]*#/ { print; exit }' "$h_manifest")
  [ -n "$line" ] || return 1
  read -r m_name m_prog m_ranks m_end m_limit m_stages m_env m_args <<<"$line"
}
# ranks_match SPEC N: "2+" means 2 or more, "4" exactly 4.
ranks_match() {
  if [[ $1 == *+ ]]; then [ "$2" -ge "${1%+}" ]; else [ "$2" -eq "$1" ]; fi
}
# entry_limit: seconds for one launch of the current entry.
entry_limit() {
  if [ -n "${MPR_TEST_TIMEOUT:-}" ]; then echo $((MPR_TEST_TIMEOUT * h_limit_scale))
  else echo $((m_limit * h_limit_scale)); fi
}

# run_entry NAME N ROOT: launches the current manifest entry (m_*) on N ranks (0: without a
# launcher), with its program under build tree ROOT, and checks how it ended (m_end):
#   ok         exit 0 and an "OK ..." line         exit0      exit 0
#   exit=C     exit code C within the time limit   fail=TEXT  non-zero exit, TEXT in the output
run_entry() {
  local name=$1 n=$2 root=$3
  selected "$name" || return 0
  local bin=$root/$m_prog secs; secs=$(entry_limit)
  if [ ! -x "$bin" ]; then
    if [ -n "${MPR_TEST_CC:-}" ]; then skip "$name" "does not build with $MPR_TEST_CC"
    else fail "$name" "not built: $bin"; fi
    return
  fi
  launch_env=()
  [ "$m_env" != - ] && IFS=, read -r -a launch_env <<<"$m_env"
  # shellcheck disable=SC2086
  launch "$name" "$n" "$secs" "$bin" ${m_args//%N/$((n > 0 ? n : 1))}
  launch_env=()
  check_leftovers "$name" "$bin"
  local why="exit $rc after $took s"
  timed_out "$secs" && why="timed out after $secs s"
  case $m_end in
    ok|exit0)
      if [ "$rc" -ne 0 ]; then
        # The first diagnostic says more than the end of the log (often a sanitizer's stack).
        local first
        first=$(grep -m1 -E '\] FAIL |runtime error:|ERROR: [A-Za-z]+Sanitizer|^mprun: ' "$log" | cut -c1-240)
        fail "$name" "$why${first:+; first error: $first}" "$log"
      elif [ "$m_end" = ok ] && ! grep -q '^OK ' "$log"; then
        fail "$name" "exit 0 but no OK line (did every rank get through?)" "$log"
      else
        pass "$name" "$took s"
      fi ;;
    exit=*)
      if [ "$rc" -ne "${m_end#exit=}" ]; then fail "$name" "$why, expected ${m_end#exit=}" "$log"
      else pass "$name" "$took s"; fi ;;
    fail=*)
      if [ "$rc" -eq 0 ]; then fail "$name" "exit 0; expected the job to fail" "$log"
      elif timed_out "$secs"; then fail "$name" "timed out" "$log"
      elif ! grep -q -- "${m_end#fail=}" "$log"; then fail "$name" "exit $rc but no '${m_end#fail=}' in the output" "$log"
      else pass "$name" "exit $rc, $took s"; fi ;;
    *) fail "$name" "manifest: unknown end '$m_end'" ;;
  esac
}

# manifest_suite PREFIX STAGE ROOT "RANKS": every entry of STAGE at each of RANKS it allows,
# named PREFIX/<name> -n N; entries the manifest skips in STAGE are reported as skipped.
manifest_suite() {
  local prefix=$1 st=$2 root=$3 sizes=$4 n why line
  while IFS= read -r line; do
    read -r m_name m_prog m_ranks m_end m_limit m_stages m_env m_args <<<"$line"
    for n in $sizes; do
      ranks_match "$m_ranks" "$n" || continue
      why=$(manifest_skip "$m_name" "$st")
      if [ -n "$why" ]; then
        selected "$prefix/$m_name -n $n" && skip "$prefix/$m_name -n $n" "$why"
        continue
      fi
      run_entry "$prefix/$m_name -n $n" "$n" "$root"
    done
  done < <(manifest_entries "$st")
}
