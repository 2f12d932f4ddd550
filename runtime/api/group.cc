// Groups: MPI_Comm_group / MPI_Comm_remote_group and every MPI_Group_* call.
#include "runtime/comm/group.h"
#include "runtime/api/handles.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;
namespace ops = mpr::runtime::group_ops;

namespace {

int check_out(const char* fn, MPI_Group* out) {
  return check_arg(fn, nullptr, out, "newgroup is NULL");
}

template <class Op>
int set_op(const char* fn, MPI_Group h1, MPI_Group h2, MPI_Group* newgroup, Op op) {
  Group *a, *b;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_group(fn, nullptr, h1, &a));
  MPR_TRY(check_group(fn, nullptr, h2, &b));
  MPR_TRY(check_out(fn, newgroup));
  *newgroup = make_group_handle(op(a->members(), b->members()));
  return MPI_SUCCESS;
}

int rank_list(const char* fn, Group* g, int n, const int* ranks, std::vector<int>* out) {
  const char* why = "";
  int bad = -1;
  int cls = ops::check_ranks(g->size(), n, ranks, &why, &bad);
  if (cls != MPI_SUCCESS) {
    if (bad >= 0)
      return raise_error(nullptr, cls, fn, "ranks[%d] = %d: %s (group size %d)", bad, ranks[bad],
                         why, g->size());
    return raise_error(nullptr, cls, fn, "%s", why);
  }
  out->assign(ranks, ranks + n);
  return MPI_SUCCESS;
}

int range_list(const char* fn, Group* g, int n, int ranges[][3], std::vector<int>* out) {
  const char* why = "";
  int bad = -1;
  int cls = ops::expand_ranges(g->size(), n, ranges, out, &why, &bad);
  if (cls == MPI_SUCCESS) return cls;
  if (bad >= 0)
    return raise_error(nullptr, cls, fn, "ranges[%d] = (%d, %d, %d): %s (group size %d)", bad,
                       ranges[bad][0], ranges[bad][1], ranges[bad][2], why, g->size());
  return raise_error(nullptr, cls, fn, "%s", why);
}

}  // namespace

extern "C" int PMPI_Comm_group(MPI_Comm h, MPI_Group* group) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_group";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, group, "group is NULL"));
  *group = make_group_handle(comm->peers());
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_group);

extern "C" int PMPI_Comm_remote_group(MPI_Comm h, MPI_Group* group) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_remote_group";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, group, "group is NULL"));
  if (!comm->is_inter()) return raise_error(comm, MPI_ERR_COMM, fn, "not an intercommunicator");
  *group = make_group_handle(comm->remote_peers());
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_remote_group);

extern "C" int PMPI_Group_size(MPI_Group h, int* size) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Group_size";
  Group* g;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_group(fn, nullptr, h, &g));
  MPR_TRY(check_arg(fn, nullptr, size, "size is NULL"));
  *size = g->size();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Group_size);

extern "C" int PMPI_Group_rank(MPI_Group h, int* rank) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Group_rank";
  Group* g;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_group(fn, nullptr, h, &g));
  MPR_TRY(check_arg(fn, nullptr, rank, "rank is NULL"));
  *rank = g->my_rank();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Group_rank);

extern "C" int PMPI_Group_translate_ranks(MPI_Group h1, int n, const int ranks1[], MPI_Group h2,
                                          int ranks2[]) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Group_translate_ranks";
  Group *a, *b;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_group(fn, nullptr, h1, &a));
  MPR_TRY(check_group(fn, nullptr, h2, &b));
  MPR_TRY(check_arg(fn, nullptr, n >= 0, "n is negative"));
  MPR_TRY(check_arg(fn, nullptr, n == 0 || (ranks1 && ranks2), "ranks1 or ranks2 is NULL"));
  for (int i = 0; i < n; ++i)
    if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= a->size()))
      return raise_error(nullptr, MPI_ERR_RANK, fn,
                         "ranks1[%d] = %d is not a rank of group1 "
                         "(size %d)",
                         i, ranks1[i], a->size());
  ops::translate(a->members(), n, ranks1, b->members(), ranks2);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Group_translate_ranks);

extern "C" int PMPI_Group_compare(MPI_Group h1, MPI_Group h2, int* result) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Group_compare";
  Group *a, *b;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_group(fn, nullptr, h1, &a));
  MPR_TRY(check_group(fn, nullptr, h2, &b));
  MPR_TRY(check_arg(fn, nullptr, result, "result is NULL"));
  *result = ops::compare(a->members(), b->members());
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Group_compare);

extern "C" int PMPI_Group_union(MPI_Group h1, MPI_Group h2, MPI_Group* newgroup) {
  MPR_ENTRY;
  return set_op("MPI_Group_union", h1, h2, newgroup, ops::set_union);
}
MPR_WEAK_ALIAS(Group_union);

extern "C" int PMPI_Group_intersection(MPI_Group h1, MPI_Group h2, MPI_Group* newgroup) {
  MPR_ENTRY;
  return set_op("MPI_Group_intersection", h1, h2, newgroup, ops::set_intersection);
}
MPR_WEAK_ALIAS(Group_intersection);

extern "C" int PMPI_Group_difference(MPI_Group h1, MPI_Group h2, MPI_Group* newgroup) {
  MPR_ENTRY;
  return set_op("MPI_Group_difference", h1, h2, newgroup, ops::set_difference);
}
MPR_WEAK_ALIAS(Group_difference);

extern "C" int PMPI_Group_incl(MPI_Group h, int n, const int ranks[], MPI_Group* newgroup) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Group_incl";
  Group* g;
  std::vector<int> list;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_group(fn, nullptr, h, &g));
  MPR_TRY(check_out(fn, newgroup));
  MPR_TRY(rank_list(fn, g, n, ranks, &list));
  *newgroup = make_group_handle(ops::incl(g->members(), list));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Group_incl);

extern "C" int PMPI_Group_excl(MPI_Group h, int n, const int ranks[], MPI_Group* newgroup) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Group_excl";
  Group* g;
  std::vector<int> list;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_group(fn, nullptr, h, &g));
  MPR_TRY(check_out(fn, newgroup));
  MPR_TRY(rank_list(fn, g, n, ranks, &list));
  *newgroup = make_group_handle(ops::excl(g->members(), list));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Group_excl);

extern "C" int PMPI_Group_range_incl(MPI_Group h, int n, int ranges[][3], MPI_Group* newgroup) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Group_range_incl";
  Group* g;
  std::vector<int> list;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_group(fn, nullptr, h, &g));
  MPR_TRY(check_out(fn, newgroup));
  MPR_TRY(range_list(fn, g, n, ranges, &list));
  *newgroup = make_group_handle(ops::incl(g->members(), list));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Group_range_incl);

extern "C" int PMPI_Group_range_excl(MPI_Group h, int n, int ranges[][3], MPI_Group* newgroup) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Group_range_excl";
  Group* g;
  std::vector<int> list;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_group(fn, nullptr, h, &g));
  MPR_TRY(check_out(fn, newgroup));
  MPR_TRY(range_list(fn, g, n, ranges, &list));
  *newgroup = make_group_handle(ops::excl(g->members(), list));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Group_range_excl);

extern "C" int PMPI_Group_free(MPI_Group* h) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Group_free";
  Group* g;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, h, "group is NULL"));
  MPR_TRY(check_group(fn, nullptr, *h, &g));
  g->release();  // MPI_GROUP_EMPTY is shared and never goes away
  *h = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Group_free);
