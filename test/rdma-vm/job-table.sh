# Sourced by the soft-RoCE suites (run-verbs-suite.sh, run-verbs-cluster-suite.sh), with $src
# set to the source tree.
# manifest_table TAG DIR/ [WIDE_TAG]: the manifest's TAG entries whose program is under DIR/, as
# the guests' table lines "program ranks [args...]". Under TCG every launch costs seconds, so
# only entries also tagged WIDE_TAG run at more than 2 ranks: the others' "N+" (N <= 2) becomes
# "2". (A subshell: the harness's functions stay out of the caller.)
manifest_table() (
  # shellcheck source=test/lib/harness.sh
  . "$src/test/lib/harness.sh"
  manifest_entries "$1" | awk -v dir="$2" -v wide="${3:-}" 'index($2, dir) == 1 {
    spec = $3
    if ((wide == "" || (","$6",") !~ ("," wide ",")) && spec ~ /^[12]\+$/) spec = "2"
    printf "%s %s", substr($2, length(dir) + 1), spec
    for (i = 8; i <= NF; i++) printf " %s", $i
    print "" }'
)
