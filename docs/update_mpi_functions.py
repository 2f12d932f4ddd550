#!/usr/bin/env python3
"""Rewrite docs/MPI_FUNCTIONS.md from the functions a built libmpi.so exports.

    python3 docs/update_mpi_functions.py <build>/.libs/libmpi.so

Rows keep their status and notes; new exports get a "yes" row under the section of mpi.h that
declares them; rows of functions no longer exported are dropped. The functions of the MPI 4.1
standard (docs/mpi_standard_functions.txt) that libmpi.so does not export are listed at the
end. Mark a function unsupported by editing its row ("unsupported" in the status column) when
it returns MPI_ERR_UNSUPPORTED_OPERATION. test/unit/comm/exports_test.cc checks the result against nm.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "MPI_FUNCTIONS.md")
HEADER = os.path.join(HERE, "..", "include", "mpi.h")
STANDARD = os.path.join(HERE, "mpi_standard_functions.txt")
ROW = re.compile(r"^\|\s*`(MPI_[A-Za-z0-9_]+)`\s*\|\s*([^|]*?)\s*\|\s*(.*?)\s*\|\s*$")


def sections():
    """Section title of every MPI_ function declared in mpi.h, and the titles in order."""
    where, order, cur = {}, [], "other"
    for line in open(HEADER):
        m = re.match(r"/\* ---- (.*?) -+ \*/", line) or re.match(r"/\* ([a-z][a-z ]*): ", line)
        if m:
            cur = m.group(1).strip()
            if cur not in order and not cur.startswith(("profiling", "end of")):
                order.append(cur)
            continue
        if line.startswith("MPR_API"):
            for name in re.findall(r"\b(MPI_[A-Za-z0-9_]+)\(", line):
                where.setdefault(name, cur)
    return where, order


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                         check=True).stdout
    return sorted({f[2] for f in (l.split() for l in out.splitlines())
                   if len(f) == 3 and f[2].startswith("MPI_")})


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    old = {}
    if os.path.exists(DOC):
        for line in open(DOC):
            m = ROW.match(line)
            if m:
                old[m.group(1)] = (m.group(2), m.group(3))
    names = exported(sys.argv[1])
    where, order = sections()
    groups = {}
    for n in names:
        groups.setdefault(where.get(n, "other"), []).append(n)
    unsupported = [n for n in names if "unsupported" in old.get(n, ("yes", ""))[0]]
    out = [
        "# MPI functions exported by libmpi.so",
        "",
        "Every `MPI_` function `libmpi.so` exports (each also exists as `PMPI_<name>` for profiling",
        "tools). A function marked **unsupported** exists so that programs naming it compile and link;",
        "every call returns `MPI_ERR_UNSUPPORTED_OPERATION` through the error handler with a message",
        "naming the call. `test/unit/mpr_unit_comm` compares this list with `nm -D libmpi.so`; after",
        "adding or removing exports, run `python3 docs/update_mpi_functions.py <build>/.libs/libmpi.so`.",
        "",
        ("%d functions, %d of them unsupported: %s." % (
            len(names), len(unsupported), ", ".join("`%s`" % n for n in unsupported)))
        if unsupported else "%d functions, every one implemented." % len(names),
        "",
    ]
    for sec in order + ["other"]:
        if sec not in groups:
            continue
        out += ["## " + sec, "", "| function | status | notes |", "|---|---|---|"]
        for n in groups[sec]:
            status, notes = old.get(n, ("yes", ""))
            out.append("| `%s` | %s | %s |" % (n, status, notes))
        out.append("")
    standard = [l.strip() for l in open(STANDARD) if l.strip() and not l.startswith("#")]
    missing = [n for n in standard if n not in set(names)]
    beyond = [n for n in names if n not in set(standard)]
    if missing:
        out += ["## MPI 4.1 functions not provided yet", "",
                "%d of the standard's %d C functions (`docs/mpi_standard_functions.txt`) are not "
                "exported yet:" % (len(missing), len(standard)), ""]
    else:
        out += ["## The MPI 4.1 function list", "",
                "Every one of the standard's %d C functions (`docs/mpi_standard_functions.txt`) "
                "is exported." % len(standard), ""]
    by_chapter = {}
    for n in missing:
        key = "MPI-IO" if n.startswith(("MPI_File_", "MPI_Register_datarep")) else (
            "tool interface (MPI_T)" if n.startswith("MPI_T_") else "other")
        by_chapter.setdefault(key, []).append(n)
    for key in ("MPI-IO", "tool interface (MPI_T)", "other"):
        if key in by_chapter:
            out += ["- %s (%d): %s" % (key, len(by_chapter[key]),
                                      ", ".join("`%s`" % n for n in by_chapter[key])), ""]
    if beyond:
        out += ["Exported beyond that list (MPI-1 names that MPI 3.0 removed, kept for old "
                "programs, as the peers do): %s." %
                ", ".join("`%s`" % n for n in beyond), ""]
    with open(DOC, "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
