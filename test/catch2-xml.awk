# Reads Catch2 v2 XML reporter output (`-r xml`) and prints one line per test case:
#   PASS<TAB>name          or   FAIL<TAB>name<TAB>first failure (file:line: what)
# plus a last line "INCOMPLETE<TAB>name" if the output stops inside a test case (a crash).
function unxml(s) {
  gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s); gsub(/&apos;/, "'", s)
  gsub(/&amp;/, "\\&", s)
  return s
}
function attr(line, key,    start) {
  if (!match(line, key "=\"[^\"]*\"")) return ""
  return unxml(substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 3))
}
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }

/<TestCase / { name = attr($0, "name"); open = 1; reason = ""; grab = ""; next }
open && /<(Expression success="false"|Exception|FatalErrorCondition|Failure)[ >]/ {
  if (reason == "") {
    kind = $0; sub(/^[ \t]*</, "", kind); sub(/[ >].*/, "", kind)
    where = attr($0, "filename") ":" attr($0, "line")
    if (kind == "Expression") kind = attr($0, "type")
    reason = where ": " kind; grab = "text"
  }
  next
}
open && grab != "" && /<Original>/ { grab = "orig"; next }
open && grab != "" && /<Expanded>/ { grab = "exp"; next }
open && grab != "" && /<\/(Expression|Exception|FatalErrorCondition|Failure)>/ { grab = ""; next }
open && grab != "" && !/^[ \t]*</ {
  t = unxml(trim($0))
  if (grab == "orig") reason = reason "( " t " )"
  else if (grab == "exp") reason = reason " with expansion: " t
  else reason = reason ": " t
  next
}
open && /<OverallResult success="true"/ { print "PASS\t" name; open = 0; next }
open && /<OverallResult success="false"/ {
  print "FAIL\t" name "\t" (reason == "" ? "failed" : reason); open = 0; next
}
END { if (open) print "INCOMPLETE\t" name }
