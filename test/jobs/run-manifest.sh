#!/usr/bin/env bash
# Runs the job manifest's entries of one stage (test/jobs/manifest) under mprun and prints one
# PASS/FAIL/SKIP line per launch, then "N passed, N failed[, N skipped]"; exits 1 if anything
# failed, 77 (skipped) when the build has no launcher. `make check` runs it from the build
# directory for the "check" stage at 1, 2 and 4 ranks; test/run-tests.sh runs the full stages
# itself through the same harness (test/lib/harness.sh).
#
#   test/jobs/run-manifest.sh [--build-dir DIR] [--stage STAGE] [--ranks "1 2 4"] [--only REGEX]
#     --build-dir  the build tree (default: the current directory, as under make check)
#     --stage      default check
#     --ranks      rank counts (default $MPR_CHECK_RANKS, else "1 2 4")
#     --only       only the tests whose name matches (extended regex)
# Logs go to DIR/test-logs/check/, one per launch.
set -uo pipefail

h_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")/../lib" && pwd)
# shellcheck source=test/lib/harness.sh
. "$h_lib/harness.sh"

build_dir=$PWD
st=check
sizes=${MPR_CHECK_RANKS:-1 2 4}
while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) build_dir=${2:?--build-dir needs a directory}; shift ;;
    --stage) st=${2:?--stage needs a name}; shift ;;
    --ranks) sizes=${2:?--ranks needs rank counts}; shift ;;
    --only) h_only=${2:?--only needs a regex}; shift ;;
    -h|--help) sed -n '8,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "run-manifest.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
build_dir=$(cd "$build_dir" && pwd) || exit 2
if [ ! -x "$build_dir/launcher/mprun" ]; then
  echo "SKIP $st: no $build_dir/launcher/mprun"
  exit 77
fi
h_logdir=$build_dir/test-logs/$st
rm -rf "$h_logdir"
mkdir -p "$h_logdir"
launcher=("$build_dir/launcher/mprun")
job_env=(MPR_TEST_RUN=1)

# The programs test/Makefile.include builds (make check passes them) and those the manifest
# runs must be the same set, so neither list can leave a job out.
name="manifest: one entry or more for each job program, a built program for each entry"
if [ -n "${MPR_TEST_JOBS:-}" ] && selected "$name"; then
  built=$(printf '%s\n' $MPR_TEST_JOBS | sort -u)
  listed=$(awk '!/^[ \t]*#/ && $1 != "skip" && $2 ~ /^test\/jobs\// { print $2 }' "$h_manifest" | sort -u)
  unlisted=$(comm -23 <(echo "$built") <(echo "$listed") | tr '\n' ' ')
  unbuilt=$(comm -13 <(echo "$built") <(echo "$listed") | tr '\n' ' ')
  if [ -n "$unlisted$unbuilt" ]; then
    fail "$name" "${unlisted:+not in the manifest: $unlisted}${unbuilt:+not in TEST_JOBS: $unbuilt}"
  else
    pass "$name"
  fi
fi

shm_at_start=$(shm_entries)
manifest_suite jobs "$st" "$build_dir" "$sizes"
name="jobs: no /dev/shm/mpr.* left behind"
if selected "$name"; then
  new_shm=$(comm -13 <(echo "$shm_at_start") <(shm_entries) | grep . || true)
  if [ -n "$new_shm" ]; then fail "$name" "${new_shm//$'\n'/ }"; else pass "$name"; fi
fi
summary
