// Every data access entry point: explicit offsets, individual and shared file pointers,
// ordered; blocking, nonblocking and split collective; int and MPI_Count (_c) counts. They
// differ only in how their arguments fill a Call (io/access.h).
#include "io/access.h"
#include "io/api/check.h"

using namespace mpr::io;

namespace {

int rw(const char* fn, MPI_File fh, Dir dir, Where where, How how, bool coll, MPI_Offset offset,
       const void* buf, MPI_Count count, MPI_Datatype type, MPI_Status* status,
       MPI_Request* request) {
  Call c;
  c.fn = fn;
  c.fh = fh;
  c.dir = dir;
  c.where = where;
  c.how = how;
  c.collective = coll;
  c.offset = offset;
  c.buf = const_cast<void*>(buf);
  c.count = count;
  c.type = type;
  c.status = status;
  c.request = request;
  return access(c);
}

constexpr Dir R = Dir::kRead;
constexpr Dir W = Dir::kWrite;

}  // namespace

// Explicit offsets: MPI_File_{read,write}_at[_all][_c] and the nonblocking i forms.
#define MPR_IO_AT(NAME, CT, BUFT, DIR, COLL)                                                    \
  extern "C" int PMPI_File_##NAME(MPI_File fh, MPI_Offset offset, BUFT buf, CT count,           \
                                  MPI_Datatype datatype, MPI_Status* status) {                  \
    MPR_ENTRY;                                                                                  \
    return rw("MPI_File_" #NAME, fh, DIR, Where::kAt, How::kBlocking, COLL, offset, buf, count, \
              datatype, status, nullptr);                                                       \
  }                                                                                             \
  MPR_WEAK_ALIAS(File_##NAME)
#define MPR_IO_IAT(NAME, CT, BUFT, DIR, COLL)                                                      \
  extern "C" int PMPI_File_##NAME(MPI_File fh, MPI_Offset offset, BUFT buf, CT count,              \
                                  MPI_Datatype datatype, MPI_Request* request) {                   \
    MPR_ENTRY;                                                                                     \
    return rw("MPI_File_" #NAME, fh, DIR, Where::kAt, How::kNonblocking, COLL, offset, buf, count, \
              datatype, nullptr, request);                                                         \
  }                                                                                                \
  MPR_WEAK_ALIAS(File_##NAME)
// File pointers (individual, shared, ordered): no offset argument.
#define MPR_IO_PTR(NAME, CT, BUFT, DIR, WHERE, COLL)                                            \
  extern "C" int PMPI_File_##NAME(MPI_File fh, BUFT buf, CT count, MPI_Datatype datatype,       \
                                  MPI_Status* status) {                                         \
    MPR_ENTRY;                                                                                  \
    return rw("MPI_File_" #NAME, fh, DIR, WHERE, How::kBlocking, COLL, 0, buf, count, datatype, \
              status, nullptr);                                                                 \
  }                                                                                             \
  MPR_WEAK_ALIAS(File_##NAME)
#define MPR_IO_IPTR(NAME, CT, BUFT, DIR, WHERE, COLL)                                              \
  extern "C" int PMPI_File_##NAME(MPI_File fh, BUFT buf, CT count, MPI_Datatype datatype,          \
                                  MPI_Request* request) {                                          \
    MPR_ENTRY;                                                                                     \
    return rw("MPI_File_" #NAME, fh, DIR, WHERE, How::kNonblocking, COLL, 0, buf, count, datatype, \
              nullptr, request);                                                                   \
  }                                                                                                \
  MPR_WEAK_ALIAS(File_##NAME)
// Split collectives: _begin (int and _c) and _end.
#define MPR_IO_BEGIN_AT(NAME, CT, BUFT, DIR, FN)                                                 \
  extern "C" int PMPI_File_##NAME(MPI_File fh, MPI_Offset offset, BUFT buf, CT count,            \
                                  MPI_Datatype datatype) {                                       \
    MPR_ENTRY;                                                                                   \
    return rw(FN, fh, DIR, Where::kAt, How::kSplit, true, offset, buf, count, datatype, nullptr, \
              nullptr);                                                                          \
  }                                                                                              \
  MPR_WEAK_ALIAS(File_##NAME)
#define MPR_IO_BEGIN_PTR(NAME, CT, BUFT, DIR, WHERE, FN)                                         \
  extern "C" int PMPI_File_##NAME(MPI_File fh, BUFT buf, CT count, MPI_Datatype datatype) {      \
    MPR_ENTRY;                                                                                   \
    return rw(FN, fh, DIR, WHERE, How::kSplit, true, 0, buf, count, datatype, nullptr, nullptr); \
  }                                                                                              \
  MPR_WEAK_ALIAS(File_##NAME)
#define MPR_IO_END(NAME, BUFT, FN)                                             \
  extern "C" int PMPI_File_##NAME(MPI_File fh, BUFT buf, MPI_Status* status) { \
    MPR_ENTRY;                                                                 \
    return split_end("MPI_File_" #NAME, fh, buf, status, FN);                  \
  }                                                                            \
  MPR_WEAK_ALIAS(File_##NAME)

#define MPR_IO_BOTH(MACRO, NAME, ...) \
  MACRO(NAME, int, __VA_ARGS__);      \
  MACRO(NAME##_c, MPI_Count, __VA_ARGS__)

MPR_IO_BOTH(MPR_IO_AT, read_at, void*, R, false);
MPR_IO_BOTH(MPR_IO_AT, write_at, const void*, W, false);
MPR_IO_BOTH(MPR_IO_AT, read_at_all, void*, R, true);
MPR_IO_BOTH(MPR_IO_AT, write_at_all, const void*, W, true);
MPR_IO_BOTH(MPR_IO_IAT, iread_at, void*, R, false);
MPR_IO_BOTH(MPR_IO_IAT, iwrite_at, const void*, W, false);
MPR_IO_BOTH(MPR_IO_IAT, iread_at_all, void*, R, true);
MPR_IO_BOTH(MPR_IO_IAT, iwrite_at_all, const void*, W, true);

MPR_IO_BOTH(MPR_IO_PTR, read, void*, R, Where::kIndividual, false);
MPR_IO_BOTH(MPR_IO_PTR, write, const void*, W, Where::kIndividual, false);
MPR_IO_BOTH(MPR_IO_PTR, read_all, void*, R, Where::kIndividual, true);
MPR_IO_BOTH(MPR_IO_PTR, write_all, const void*, W, Where::kIndividual, true);
MPR_IO_BOTH(MPR_IO_IPTR, iread, void*, R, Where::kIndividual, false);
MPR_IO_BOTH(MPR_IO_IPTR, iwrite, const void*, W, Where::kIndividual, false);
MPR_IO_BOTH(MPR_IO_IPTR, iread_all, void*, R, Where::kIndividual, true);
MPR_IO_BOTH(MPR_IO_IPTR, iwrite_all, const void*, W, Where::kIndividual, true);

MPR_IO_BOTH(MPR_IO_PTR, read_shared, void*, R, Where::kShared, false);
MPR_IO_BOTH(MPR_IO_PTR, write_shared, const void*, W, Where::kShared, false);
MPR_IO_BOTH(MPR_IO_IPTR, iread_shared, void*, R, Where::kShared, false);
MPR_IO_BOTH(MPR_IO_IPTR, iwrite_shared, const void*, W, Where::kShared, false);
MPR_IO_BOTH(MPR_IO_PTR, read_ordered, void*, R, Where::kOrdered, true);
MPR_IO_BOTH(MPR_IO_PTR, write_ordered, const void*, W, Where::kOrdered, true);

// The split collectives' _begin and _c forms share one name for the _end's check.
MPR_IO_BEGIN_AT(read_at_all_begin, int, void*, R, "MPI_File_read_at_all_begin");
MPR_IO_BEGIN_AT(read_at_all_begin_c, MPI_Count, void*, R, "MPI_File_read_at_all_begin");
MPR_IO_BEGIN_AT(write_at_all_begin, int, const void*, W, "MPI_File_write_at_all_begin");
MPR_IO_BEGIN_AT(write_at_all_begin_c, MPI_Count, const void*, W, "MPI_File_write_at_all_begin");
MPR_IO_BEGIN_PTR(read_all_begin, int, void*, R, Where::kIndividual, "MPI_File_read_all_begin");
MPR_IO_BEGIN_PTR(read_all_begin_c, MPI_Count, void*, R, Where::kIndividual,
                 "MPI_File_read_all_begin");
MPR_IO_BEGIN_PTR(write_all_begin, int, const void*, W, Where::kIndividual,
                 "MPI_File_write_all_begin");
MPR_IO_BEGIN_PTR(write_all_begin_c, MPI_Count, const void*, W, Where::kIndividual,
                 "MPI_File_write_all_begin");
MPR_IO_BEGIN_PTR(read_ordered_begin, int, void*, R, Where::kOrdered, "MPI_File_read_ordered_begin");
MPR_IO_BEGIN_PTR(read_ordered_begin_c, MPI_Count, void*, R, Where::kOrdered,
                 "MPI_File_read_ordered_begin");
MPR_IO_BEGIN_PTR(write_ordered_begin, int, const void*, W, Where::kOrdered,
                 "MPI_File_write_ordered_begin");
MPR_IO_BEGIN_PTR(write_ordered_begin_c, MPI_Count, const void*, W, Where::kOrdered,
                 "MPI_File_write_ordered_begin");

MPR_IO_END(read_at_all_end, void*, "MPI_File_read_at_all_begin");
MPR_IO_END(write_at_all_end, const void*, "MPI_File_write_at_all_begin");
MPR_IO_END(read_all_end, void*, "MPI_File_read_all_begin");
MPR_IO_END(write_all_end, const void*, "MPI_File_write_all_begin");
MPR_IO_END(read_ordered_end, void*, "MPI_File_read_ordered_begin");
MPR_IO_END(write_ordered_end, const void*, "MPI_File_write_ordered_begin");
