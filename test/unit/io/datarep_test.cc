// Data representations: file sizes and layouts of types in external32 and in a user
// representation (filetypes rebuilt with each basic type at its file size), conversions in
// element ranges, and the hints' parsing.
#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <vector>

#include "io/datarep.h"
#include "io/file.h"
#include "io/view.h"
#include "runtime/dt/build.h"

using namespace mpr::io;
using namespace mpr::runtime;

TEST_CASE("external32 sizes and filetype layouts", "[io][datarep]") {
  const Datarep& ext = *find_datarep("external32");
  REQUIRE(find_datarep("native")->native());
  REQUIRE(find_datarep("internal")->native());
  REQUIRE(find_datarep("nonesuch") == nullptr);
  size_t n = 0;
  REQUIRE(file_size(ext, to_datatype(MPI_LONG), &n) == MPI_SUCCESS);
  REQUIRE(n == 4);
  REQUIRE(file_size(ext, to_datatype(MPI_DOUBLE_INT), &n) == MPI_SUCCESS);
  REQUIRE(n == 12);
  // A vector of longs every other one: 4-byte longs in the file, so extent 3 * 4 * 2 + 4.
  Datatype* vec = dt::make_vector(4, 1, 2, to_datatype(MPI_LONG));
  vec->committed = true;
  const Datatype* ft = nullptr;
  REQUIRE(file_type(ext, vec, &ft) == MPI_SUCCESS);
  REQUIRE(ft != vec);
  REQUIRE(ft->size == 16);
  REQUIRE(ft->extent == 28);
  ft->release();
  // Types whose basic types keep their size are used as they are.
  Datatype* ints = dt::make_vector(3, 2, 5, to_datatype(MPI_INT));
  ints->committed = true;
  REQUIRE(file_type(ext, ints, &ft) == MPI_SUCCESS);
  REQUIRE(ft == ints);
  ft->release();
  // A subarray of longs and a resized struct: rebuilt from their arguments.
  int sizes[2] = {6, 8}, sub[2] = {2, 3}, starts[2] = {1, 4};
  Datatype* sa = dt::make_subarray(2, sizes, sub, starts, MPI_ORDER_C, to_datatype(MPI_LONG));
  sa->committed = true;
  REQUIRE(file_type(ext, sa, &ft) == MPI_SUCCESS);
  REQUIRE(ft->extent == 6 * 8 * 4);
  REQUIRE(ft->true_lb == (1 * 8 + 4) * 4);
  std::unique_ptr<View> v;
  const char* why = "";
  REQUIRE(View::make(0, to_datatype(MPI_LONG), sa, &ext, true, &v, &why) == MPI_SUCCESS);
  REQUIRE(v->esize() == 4);
  REQUIRE(v->file_offset(12) == ((2 * 8 + 4) * 4));  // the second row's first long
  ft->release();
  vec->release();
  ints->release();
  sa->release();
}

TEST_CASE("external32 conversions of element ranges round trip", "[io][datarep]") {
  const Datarep& ext = *find_datarep("external32");
  std::vector<long> in = {1, -2, 300000, -400000, 5, 6};
  std::vector<char> file(6 * 4);
  // Elements 2..4 only.
  REQUIRE(to_file(ext, to_datatype(MPI_LONG), in.data(), 2, 3, file.data()) == MPI_SUCCESS);
  const unsigned char* b = reinterpret_cast<const unsigned char*>(file.data());
  REQUIRE(b[0] == 0x00);
  REQUIRE(b[1] == 0x04);
  REQUIRE(b[2] == 0x93);
  REQUIRE(b[3] == 0xe0);  // 300000 big-endian
  std::vector<long> out(6, 99);
  REQUIRE(from_file(ext, to_datatype(MPI_LONG), out.data(), 2, 3, file.data()) == MPI_SUCCESS);
  REQUIRE(out == std::vector<long>({99, 99, 300000, -400000, 5, 99}));
}

namespace {
int doubled(MPI_Datatype t, MPI_Aint* extent, void*) {
  *extent = 2 * static_cast<MPI_Aint>(to_datatype(t)->size);
  return MPI_SUCCESS;
}
}  // namespace

TEST_CASE("a user representation's extents lay filetypes out", "[io][datarep]") {
  Datarep user;
  user.name = "mpr-unit-doubled";
  user.kind = Datarep::Kind::kUser;
  user.extent_fn = &doubled;
  REQUIRE(register_datarep(user) == MPI_SUCCESS);
  REQUIRE(register_datarep(user) == MPI_ERR_DUP_DATAREP);
  const Datarep& rep = *find_datarep("mpr-unit-doubled");
  size_t n = 0;
  int bl[2] = {1, 2};
  MPI_Aint disp[2] = {0, 16};
  Datatype* types[2] = {to_datatype(MPI_INT), to_datatype(MPI_SHORT)};
  Datatype* st = dt::make_struct(2, bl, disp, types);
  st->committed = true;
  REQUIRE(file_size(rep, st, &n) == MPI_SUCCESS);
  REQUIRE(n == 8 + 2 * 4);
  const Datatype* ft = nullptr;
  REQUIRE(file_type(rep, st, &ft) == MPI_SUCCESS);
  REQUIRE(ft->size == 16);
  REQUIRE(ft->true_lb == 0);
  REQUIRE(ft->true_extent == 16 + 8);
  ft->release();
  st->release();
}

TEST_CASE("hints parse sizes, switches and modes; bad values are refused", "[io][hints]") {
  Hints h;
  bool bad = false;
  REQUIRE(h.apply_one("cb_buffer_size", "4m", &bad));
  REQUIRE(!bad);
  REQUIRE(h.cb_buffer_size == 4u << 20);
  REQUIRE(h.apply_one("romio_cb_write", "disable", &bad));
  REQUIRE(h.cb_write == Tri::kDisable);
  REQUIRE(h.apply_one("collective_buffering", "true", &bad));
  REQUIRE(h.cb_read == Tri::kEnable);
  REQUIRE(h.cb_write == Tri::kEnable);
  REQUIRE(h.apply_one("romio_ds_read", "enable", &bad));
  REQUIRE(h.ds_read == Sieve::kEnable);
  REQUIRE(h.apply_one("file_perm", "640", &bad));
  REQUIRE(h.file_perm == 0640);
  REQUIRE(h.apply_one("cb_nodes", "0", &bad));
  REQUIRE(bad);
  REQUIRE(h.apply_one("cb_buffer_size", "lots", &bad));
  REQUIRE(bad);
  REQUIRE(h.apply_one("romio_ds_write", "sometimes", &bad));
  REQUIRE(bad);
  REQUIRE(!h.apply_one("no_such_hint", "1", &bad));
  Info info;
  info.set("striping_unit", "1048576");
  info.set("cb_nodes", "3");
  std::string why;
  REQUIRE(h.apply(info, &why) == MPI_SUCCESS);
  REQUIRE(h.striping_unit == 1u << 20);
  REQUIRE(h.cb_nodes == 3);
  info.set("ind_rd_buffer_size", "-5");
  REQUIRE(h.apply(info, &why) == MPI_ERR_INFO_VALUE);
  REQUIRE(why.find("ind_rd_buffer_size") != std::string::npos);
  Info out;
  h.report(&out);
  REQUIRE(*out.get("cb_buffer_size") == "4194304");
  REQUIRE(*out.get("romio_ds_read") == "enable");
  REQUIRE(*out.get("file_perm") == "640");
}
