/* Datatype features beyond the derived-type constructors: predefined reductions on MPI_CHAR
 * (Allreduce and one-sided accumulates), the Fortran named types used from C (send/recv,
 * Allreduce with COMPLEX sums, LOGICAL LAND/LOR, MINLOC on 2INTEGER; names and envelopes),
 * MPI_Type_match_size and the f90 parameterized types, attributes on datatypes (copy and
 * delete callback counts; a freed keyval still deletes its attributes), MPI_Type_create_darray
 * against a hand computation of each process's elements, and MPI_Pack_external against
 * hand-written big-endian bytes; the MPI-1 names MPI 3.0 removed (MPI_Type_hindexed,
 * MPI_Type_struct, MPI_Address, MPI_Type_extent/lb/ub, MPI_Errhandler_create/set/get), which
 * older codes still call. */
#include "jobs_util.h"

static int rank_, size_, next_, prev_;

/* ---- reductions on MPI_CHAR ------------------------------------------------------------- */

static void check_char_reductions(void) {
  enum { N = 6 };
  char in[N], out[N];
  for (int i = 0; i < N; ++i) in[i] = (char)((rank_ + i) % 5);
  struct {
    MPI_Op op;
    const char *name;
  } ops[] = {{MPI_SUM, "SUM"}, {MPI_MAX, "MAX"},   {MPI_MIN, "MIN"}, {MPI_BAND, "BAND"},
             {MPI_BOR, "BOR"}, {MPI_LAND, "LAND"}, {MPI_LOR, "LOR"}, {MPI_PROD, "PROD"}};
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; ++k) {
    CHECK_MPI(MPI_Allreduce(in, out, N, MPI_CHAR, ops[k].op, MPI_COMM_WORLD));
    for (int i = 0; i < N; ++i) {
      int want = (i % 5);
      for (int r = 1; r < size_; ++r) {
        int v = (r + i) % 5;
        if (ops[k].op == MPI_SUM) want += v;
        if (ops[k].op == MPI_MAX) want = v > want ? v : want;
        if (ops[k].op == MPI_MIN) want = v < want ? v : want;
        if (ops[k].op == MPI_BAND) want &= v;
        if (ops[k].op == MPI_BOR) want |= v;
        if (ops[k].op == MPI_LAND) want = want && v;
        if (ops[k].op == MPI_LOR) want = want || v;
        if (ops[k].op == MPI_PROD) want = (char)(want * v);
      }
      /* One process: the result is its own data, never combined. */
      if ((ops[k].op == MPI_LAND || ops[k].op == MPI_LOR) && size_ > 1) want = want != 0;
      CHECK_MSG(out[i] == (char)want, "MPI_%s on MPI_CHAR, element %d: got %d, want %d",
                ops[k].name, i, out[i], want);
    }
  }
  signed char s = (signed char)-rank_, sr;
  unsigned char u = (unsigned char)(rank_ + 1), ur;
  CHECK_MPI(MPI_Allreduce(&s, &sr, 1, MPI_SIGNED_CHAR, MPI_SUM, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allreduce(&u, &ur, 1, MPI_UNSIGNED_CHAR, MPI_SUM, MPI_COMM_WORLD));
  CHECK_INT(sr, ==, -size_ * (size_ - 1) / 2);
  CHECK_INT(ur, ==, size_ * (size_ + 1) / 2);
  char r0 = 0;
  CHECK_MPI(MPI_Reduce(&in[1], &r0, 1, MPI_CHAR, MPI_SUM, 0, MPI_COMM_WORLD));
  if (rank_ == 0) {
    int want = 0;
    for (int r = 0; r < size_; ++r) want += (r + 1) % 5;
    CHECK_INT(r0, ==, want);
  }
}

static void check_char_accumulate(void) {
  enum { N = 5 };
  char *base;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(N + 2, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  CHECK_MPI(MPI_Win_fence(0, win));
  memset(base, 0, N + 2);
  CHECK_MPI(MPI_Win_fence(0, win));
  char add[N];
  for (int i = 0; i < N; ++i) add[i] = (char)(rank_ + 1);
  for (int t = 0; t < size_; ++t)
    CHECK_MPI(MPI_Accumulate(add, N, MPI_CHAR, t, 0, N, MPI_CHAR, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < N; ++i) CHECK_INT(base[i], ==, size_ * (size_ + 1) / 2);
  CHECK_MPI(MPI_Win_fence(0, win));
  /* MAX with MPI_Accumulate onto the sum, then Fetch_and_op (SUM) and Get_accumulate (BOR)
   * on the last two bytes. */
  char mine = (char)(10 + rank_);
  CHECK_MPI(MPI_Accumulate(&mine, 1, MPI_CHAR, 0, 0, 1, MPI_CHAR, MPI_MAX, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  const int sum = size_ * (size_ + 1) / 2, top = 10 + size_ - 1;
  if (rank_ == 0) CHECK_INT(base[0], ==, sum > top ? sum : top);
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  char one = 1, got = -1, got2 = -1;
  CHECK_MPI(MPI_Fetch_and_op(&one, &got, MPI_CHAR, 0, N, MPI_SUM, win));
  CHECK_MPI(MPI_Win_flush(0, win));
  CHECK(got >= 0 && got < size_);
  CHECK_MPI(MPI_Get_accumulate(&one, 1, MPI_CHAR, &got2, 1, MPI_CHAR, 0, N + 1, 1, MPI_CHAR,
                               MPI_BOR, win));
  CHECK_MPI(MPI_Win_flush(0, win));
  CHECK(got2 == 0 || got2 == 1);
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank_ == 0) {
    CHECK_INT(base[N], ==, size_);
    CHECK_INT(base[N + 1], ==, 1);
  }
  CHECK_MPI(MPI_Win_free(&win));
}

/* ---- Fortran types ------------------------------------------------------------------------ */

typedef struct {
  float re, im;
} cfloat;
typedef struct {
  double re, im;
} cdouble;

static void check_fortran_p2p(void) {
  int32_t ints[4], iback[4];
  double dp[3], dback[3];
  cfloat cx[2], cback[2];
  for (int i = 0; i < 4; ++i) ints[i] = rank_ * 100 + i;
  for (int i = 0; i < 3; ++i) dp[i] = rank_ + 0.25 * i;
  for (int i = 0; i < 2; ++i) cx[i] = (cfloat){(float)rank_, (float)-i};
  CHECK_MPI(MPI_Sendrecv(ints, 4, MPI_INTEGER, next_, 1, iback, 4, MPI_INTEGER, prev_, 1,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Sendrecv(dp, 3, MPI_DOUBLE_PRECISION, next_, 2, dback, 3, MPI_DOUBLE_PRECISION,
                         prev_, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(cx, 2, MPI_COMPLEX, next_, 3, cback, 2, MPI_COMPLEX, prev_, 3,
                         MPI_COMM_WORLD, &st));
  int count;
  CHECK_MPI(MPI_Get_count(&st, MPI_COMPLEX, &count));
  CHECK_INT(count, ==, 2);
  CHECK_MPI(MPI_Get_count(&st, MPI_REAL, &count));
  CHECK_INT(count, ==, 4);
  for (int i = 0; i < 4; ++i) CHECK_INT(iback[i], ==, prev_ * 100 + i);
  for (int i = 0; i < 3; ++i) CHECK(dback[i] == prev_ + 0.25 * i);
  for (int i = 0; i < 2; ++i) CHECK(cback[i].re == (float)prev_ && cback[i].im == (float)-i);
  /* Packing a Fortran type: MPI_LOGICAL is 4 bytes, MPI_CHARACTER 1. */
  int psize;
  CHECK_MPI(MPI_Pack_size(3, MPI_LOGICAL, MPI_COMM_WORLD, &psize));
  CHECK_INT(psize, >=, 12);
  CHECK_MPI(MPI_Pack_size(5, MPI_CHARACTER, MPI_COMM_WORLD, &psize));
  CHECK_INT(psize, >=, 5);
}

static void check_fortran_reductions(void) {
  int32_t iv[2] = {rank_ + 1, 1 << rank_ % 16}, ir[2];
  CHECK_MPI(MPI_Allreduce(iv, ir, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD));
  CHECK_INT(ir[0], ==, size_ * (size_ + 1) / 2);
  CHECK_MPI(MPI_Allreduce(&iv[1], &ir[1], 1, MPI_INTEGER4, MPI_BOR, MPI_COMM_WORLD));
  CHECK_INT(ir[1], ==, (1 << size_) - 1);
  int64_t lv = ((int64_t)1 << 40) + rank_, lr;
  CHECK_MPI(MPI_Allreduce(&lv, &lr, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD));
  CHECK(lr == ((int64_t)size_ << 40) + size_ * (size_ - 1) / 2);
  float rv = (float)(size_ - 1 - rank_), rr;
  CHECK_MPI(MPI_Allreduce(&rv, &rr, 1, MPI_REAL, MPI_MAX, MPI_COMM_WORLD));
  CHECK(rr == (float)(size_ - 1));
  double dv = 0.5 * rank_, dr;
  CHECK_MPI(MPI_Allreduce(&dv, &dr, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD));
  CHECK(dr == 0.25 * size_ * (size_ - 1));
  /* COMPLEX sums: (r + 1, -r) over the ranks. */
  cfloat c = {(float)(rank_ + 1), (float)-rank_}, cs;
  CHECK_MPI(MPI_Allreduce(&c, &cs, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
  CHECK_MSG(cs.re == (float)(size_ * (size_ + 1) / 2) && cs.im == (float)(-size_ * (size_ - 1) / 2),
            "MPI_COMPLEX sum (%g, %g)", cs.re, cs.im);
  cdouble z = {1.0, rank_ == 0 ? 1.0 : 0.0}, zp;
  CHECK_MPI(MPI_Allreduce(&z, &zp, 1, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
  CHECK(zp.re == 1.0 && zp.im == 1.0); /* (1 + i) * 1 * 1 ... */
  /* LOGICAL: any nonzero value is true, results are 1 or 0. */
  int32_t lg[3] = {5, rank_ == 0 ? 0 : 7, rank_ == size_ - 1 ? -1 : 0}, land[3], lor[3];
  CHECK_MPI(MPI_Allreduce(lg, land, 3, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allreduce(lg, lor, 3, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
  if (size_ > 1) { /* one process: its own data, never combined */
    CHECK_INT(land[0], ==, 1);
    CHECK_INT(land[1], ==, 0);
    CHECK_INT(land[2], ==, 0);
    CHECK_INT(lor[0], ==, 1);
    CHECK_INT(lor[1], ==, 1);
    CHECK_INT(lor[2], ==, 1);
  }
  /* MINLOC on 2INTEGER: value |r - size/2|, index r: the minimum 0 is at rank size/2. */
  int32_t pair[2] = {rank_ > size_ / 2 ? rank_ - size_ / 2 : size_ / 2 - rank_, rank_}, pr[2];
  CHECK_MPI(MPI_Allreduce(pair, pr, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD));
  CHECK_INT(pr[0], ==, 0);
  CHECK_INT(pr[1], ==, size_ / 2);
  /* MAXLOC on 2REAL: the largest value (rank) wins; 2DOUBLE_PRECISION ties keep the lowest
   * index. */
  float fp[2] = {(float)rank_, (float)(10 * rank_)}, fr[2];
  CHECK_MPI(MPI_Allreduce(fp, fr, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD));
  CHECK(fr[0] == (float)(size_ - 1) && fr[1] == (float)(10 * (size_ - 1)));
  double dpair[2] = {3.0, (double)rank_}, dres[2];
  CHECK_MPI(MPI_Allreduce(dpair, dres, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD));
  CHECK(dres[0] == 3.0 && dres[1] == 0.0);
}

static void check_fortran_names(void) {
  struct {
    MPI_Datatype t;
    const char *name;
    int size;
  } types[] = {
      {MPI_INTEGER, "MPI_INTEGER", 4},
      {MPI_REAL, "MPI_REAL", 4},
      {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8},
      {MPI_COMPLEX, "MPI_COMPLEX", 8},
      {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16},
      {MPI_LOGICAL, "MPI_LOGICAL", 4},
      {MPI_CHARACTER, "MPI_CHARACTER", 1},
      {MPI_2REAL, "MPI_2REAL", 8},
      {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16},
      {MPI_2INTEGER, "MPI_2INTEGER", 8},
      {MPI_INTEGER1, "MPI_INTEGER1", 1},
      {MPI_INTEGER2, "MPI_INTEGER2", 2},
      {MPI_INTEGER4, "MPI_INTEGER4", 4},
      {MPI_INTEGER8, "MPI_INTEGER8", 8},
      {MPI_REAL4, "MPI_REAL4", 4},
      {MPI_REAL8, "MPI_REAL8", 8},
      {MPI_REAL16, "MPI_REAL16", 16},
      {MPI_COMPLEX8, "MPI_COMPLEX8", 8},
      {MPI_COMPLEX16, "MPI_COMPLEX16", 16},
      {MPI_COMPLEX32, "MPI_COMPLEX32", 32},
      {MPI_C_BOOL, "MPI_C_BOOL", 1},
      {MPI_CXX_BOOL, "MPI_CXX_BOOL", 1},
      {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", 16},
      {MPI_AINT, "MPI_AINT", (int)sizeof(MPI_Aint)},
      {MPI_OFFSET, "MPI_OFFSET", (int)sizeof(MPI_Offset)},
      {MPI_COUNT, "MPI_COUNT", (int)sizeof(MPI_Count)},
  };
  for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i) {
    char name[MPI_MAX_OBJECT_NAME];
    int len, size, ni, na, nd, combiner;
    MPI_Aint lb, extent;
    CHECK_MPI(MPI_Type_get_name(types[i].t, name, &len));
    CHECK_MSG(strcmp(name, types[i].name) == 0, "name \"%s\", want \"%s\"", name, types[i].name);
    CHECK_MPI(MPI_Type_size(types[i].t, &size));
    CHECK_MSG(size == types[i].size, "%s: size %d, want %d", types[i].name, size, types[i].size);
    CHECK_MPI(MPI_Type_get_extent(types[i].t, &lb, &extent));
    CHECK_MSG(lb == 0 && extent == types[i].size, "%s: lb %ld extent %ld", types[i].name,
              (long)lb, (long)extent);
    CHECK_MPI(MPI_Type_get_envelope(types[i].t, &ni, &na, &nd, &combiner));
    CHECK_MSG(combiner == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0,
              "%s: envelope %d %d %d combiner %d", types[i].name, ni, na, nd, combiner);
  }
  CHECK(MPI_INTEGER16 == MPI_DATATYPE_NULL);
}

static void check_match_size_and_f90(void) {
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, &t));
  CHECK(t == MPI_INTEGER8);
  CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t));
  CHECK(t == MPI_INTEGER4);
  CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, &t));
  CHECK(t == MPI_REAL4);
  CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
  CHECK(t == MPI_REAL8);
  CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t));
  CHECK(t == MPI_COMPLEX16);
  CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t) != MPI_SUCCESS);

  struct {
    int combiner, p, r, size;
  } cases[] = {
      {MPI_COMBINER_F90_INTEGER, 0, 2, 1},   {MPI_COMBINER_F90_INTEGER, 0, 5, 4},
      {MPI_COMBINER_F90_INTEGER, 0, 9, 4},   {MPI_COMBINER_F90_INTEGER, 0, 18, 8},
      {MPI_COMBINER_F90_REAL, 6, 37, 4},     {MPI_COMBINER_F90_REAL, 10, MPI_UNDEFINED, 8},
      {MPI_COMBINER_F90_REAL, MPI_UNDEFINED, 300, 8},
      {MPI_COMBINER_F90_COMPLEX, 3, MPI_UNDEFINED, 8},
      {MPI_COMBINER_F90_COMPLEX, 15, 307, 16},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    int p = cases[i].p, r = cases[i].r;
    if (cases[i].combiner == MPI_COMBINER_F90_INTEGER)
      CHECK_MPI(MPI_Type_create_f90_integer(r, &t));
    else if (cases[i].combiner == MPI_COMBINER_F90_REAL)
      CHECK_MPI(MPI_Type_create_f90_real(p, r, &t));
    else
      CHECK_MPI(MPI_Type_create_f90_complex(p, r, &t));
    int size, ni, na, nd, combiner, ints[2] = {-1, -1};
    MPI_Aint aint;
    MPI_Datatype dtype;
    CHECK_MPI(MPI_Type_size(t, &size));
    CHECK_MSG(size == cases[i].size, "case %zu: size %d, want %d", i, size, cases[i].size);
    CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner));
    CHECK_INT(combiner, ==, cases[i].combiner);
    CHECK_INT(ni, ==, cases[i].combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2);
    CHECK_INT(na, ==, 0);
    CHECK_INT(nd, ==, 0);
    CHECK_MPI(MPI_Type_get_contents(t, 2, 0, 0, ints, &aint, &dtype));
    if (cases[i].combiner == MPI_COMBINER_F90_INTEGER) {
      CHECK_INT(ints[0], ==, r);
    } else {
      CHECK_INT(ints[0], ==, p);
      CHECK_INT(ints[1], ==, r);
    }
  }
  CHECK(MPI_Type_create_f90_integer(40, &t) != MPI_SUCCESS);
  /* An f90 type in a reduction: INTEGER with 9 digits is 4 bytes. */
  CHECK_MPI(MPI_Type_create_f90_integer(9, &t));
  int32_t v = rank_, s;
  CHECK_MPI(MPI_Allreduce(&v, &s, 1, t, MPI_SUM, MPI_COMM_WORLD));
  CHECK_INT(s, ==, size_ * (size_ - 1) / 2);
}

/* ---- attributes on datatypes -------------------------------------------------------------- */

static int copies_, deletes_;
static int copy_plus_one(MPI_Datatype t, int keyval, void *extra, void *in, void *out,
                         int *flag) {
  (void)t;
  (void)keyval;
  CHECK(extra == &copies_);
  ++copies_;
  *(void **)out = (char *)in + 1;
  *flag = 1;
  return MPI_SUCCESS;
}
static int count_delete(MPI_Datatype t, int keyval, void *value, void *extra) {
  (void)t;
  (void)keyval;
  (void)value;
  CHECK(extra == &copies_);
  ++deletes_;
  return MPI_SUCCESS;
}
static int comm_deletes_;
static int comm_count_delete(MPI_Comm c, int keyval, void *value, void *extra) {
  (void)c;
  (void)keyval;
  (void)value;
  (void)extra;
  ++comm_deletes_;
  return MPI_SUCCESS;
}

static void check_type_attributes(void) {
  static char anchor[8];
  int key, dupkey, nullkey, flag;
  void *val;
  MPI_Datatype t, d;
  CHECK_MPI(MPI_Type_create_keyval(copy_plus_one, count_delete, &key, &copies_));
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &dupkey, NULL));
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &nullkey,
                                   NULL));
  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
  CHECK_MPI(MPI_Type_get_attr(t, key, &val, &flag));
  CHECK_INT(flag, ==, 0);
  CHECK_MPI(MPI_Type_set_attr(t, key, anchor));
  CHECK_MPI(MPI_Type_set_attr(t, dupkey, anchor + 4));
  CHECK_MPI(MPI_Type_set_attr(t, nullkey, anchor + 5));
  CHECK_MPI(MPI_Type_get_attr(t, key, &val, &flag));
  CHECK(flag && val == anchor);
  /* Dup: the copy callback runs once; DUP_FN copies the value; NULL_COPY_FN drops it. */
  CHECK_MPI(MPI_Type_dup(t, &d));
  CHECK_INT(copies_, ==, 1);
  CHECK_MPI(MPI_Type_get_attr(d, key, &val, &flag));
  CHECK(flag && val == anchor + 1);
  CHECK_MPI(MPI_Type_get_attr(d, dupkey, &val, &flag));
  CHECK(flag && val == anchor + 4);
  CHECK_MPI(MPI_Type_get_attr(d, nullkey, &val, &flag));
  CHECK_INT(flag, ==, 0);
  /* Replacing a value runs the delete callback on the old one. */
  CHECK_MPI(MPI_Type_set_attr(d, key, anchor + 2));
  CHECK_INT(deletes_, ==, 1);
  CHECK_MPI(MPI_Type_delete_attr(d, key));
  CHECK_INT(deletes_, ==, 2);
  CHECK_MPI(MPI_Type_get_attr(d, key, &val, &flag));
  CHECK_INT(flag, ==, 0);
  CHECK_MPI(MPI_Type_set_attr(d, key, anchor + 3));
  CHECK_MPI(MPI_Type_free(&d));
  CHECK_INT(deletes_, ==, 3);
  /* A freed keyval still reads and deletes the attribute a type carries. */
  int saved = key;
  CHECK_MPI(MPI_Type_free_keyval(&key));
  CHECK(key == MPI_KEYVAL_INVALID);
  CHECK_MPI(MPI_Type_get_attr(t, saved, &val, &flag));
  CHECK(flag && val == anchor);
  CHECK_MPI(MPI_Type_delete_attr(t, saved));
  CHECK_INT(deletes_, ==, 4);
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_INT(deletes_, ==, 4);
  /* Attributes on a predefined type. */
  CHECK_MPI(MPI_Type_set_attr(MPI_INT, dupkey, anchor + 6));
  CHECK_MPI(MPI_Type_get_attr(MPI_INT, dupkey, &val, &flag));
  CHECK(flag && val == anchor + 6);
  CHECK_MPI(MPI_Type_delete_attr(MPI_INT, dupkey));
  CHECK_MPI(MPI_Type_free_keyval(&dupkey));
  CHECK_MPI(MPI_Type_free_keyval(&nullkey));

  /* The same for a communicator: delete through a freed keyval. */
  MPI_Comm c;
  int ckey;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_count_delete, &ckey, NULL));
  CHECK_MPI(MPI_Comm_set_attr(c, ckey, anchor));
  saved = ckey;
  CHECK_MPI(MPI_Comm_free_keyval(&ckey));
  CHECK_MPI(MPI_Comm_get_attr(c, saved, &val, &flag));
  CHECK(flag && val == anchor);
  CHECK_MPI(MPI_Comm_delete_attr(c, saved));
  CHECK_INT(comm_deletes_, ==, 1);
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_INT(comm_deletes_, ==, 1);
}

/* ---- darray ---------------------------------------------------------------------------------- */

/* Whether index i of a dimension of gsize g belongs to coordinate c of p processes. */
static int owns(int dist, int darg, int g, int p, int c, int i) {
  if (dist == MPI_DISTRIBUTE_NONE) return 1;
  if (dist == MPI_DISTRIBUTE_BLOCK) {
    int blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
    return i / blk == c;
  }
  int blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
  return (i / blk) % p == c;
}

static void check_darray_case(int ndims, const int *gsizes, const int *distribs,
                              const int *dargs, const int *psizes, int order) {
  int nprocs = 1, total = 1;
  for (int d = 0; d < ndims; ++d) {
    nprocs *= psizes[d];
    total *= gsizes[d];
  }
  int *global = jobs_malloc(sizeof(int) * (size_t)total);
  int *packed = jobs_malloc(sizeof(int) * (size_t)total + 1);
  int *want = jobs_malloc(sizeof(int) * (size_t)total + 1);
  for (int k = 0; k < total; ++k) global[k] = k;
  for (int r = 0; r < nprocs; ++r) {
    int coords[4], left = r, procs = nprocs;
    for (int d = 0; d < ndims; ++d) { /* the process grid is row-major */
      procs /= psizes[d];
      coords[d] = left / procs;
      left %= procs;
    }
    /* Walk the array in memory order and keep the elements this process owns. */
    int nwant = 0;
    for (int k = 0; k < total; ++k) {
      int rest = k, mine = 1;
      for (int j = 0; j < ndims; ++j) {
        int d = order == MPI_ORDER_C ? ndims - 1 - j : j; /* fastest dimension first */
        int idx = rest % gsizes[d];
        rest /= gsizes[d];
        mine = mine && owns(distribs[d], dargs[d], gsizes[d], psizes[d], coords[d], idx);
      }
      if (mine) want[nwant++] = k;
    }
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_create_darray(nprocs, r, ndims, gsizes, distribs, dargs, psizes, order,
                                     MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    int size, pos = 0;
    MPI_Aint lb, extent;
    CHECK_MPI(MPI_Type_size(t, &size));
    CHECK_MPI(MPI_Type_get_extent(t, &lb, &extent));
    CHECK_MSG(size == nwant * 4, "darray rank %d of %d: size %d, want %d", r, nprocs, size,
              nwant * 4);
    CHECK_MSG(lb == 0 && extent == (MPI_Aint)total * 4, "darray rank %d: lb %ld extent %ld", r,
              (long)lb, (long)extent);
    CHECK_MPI(MPI_Pack(global, 1, t, packed, (int)sizeof(int) * total, &pos, MPI_COMM_SELF));
    CHECK_INT(pos, ==, nwant * 4);
    for (int k = 0; k < nwant; ++k)
      CHECK_MSG(packed[k] == want[k], "darray rank %d of %d (order %s): element %d is %d, want %d",
                r, nprocs, order == MPI_ORDER_C ? "C" : "Fortran", k, packed[k], want[k]);
    int ni, na, nd, combiner;
    CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner));
    CHECK_INT(combiner, ==, MPI_COMBINER_DARRAY);
    CHECK_INT(ni, ==, 4 * ndims + 4);
    CHECK_INT(na, ==, 0);
    CHECK_INT(nd, ==, 1);
    int ints[20];
    MPI_Aint aints[1];
    MPI_Datatype old;
    CHECK_MPI(MPI_Type_get_contents(t, 20, 1, 1, ints, aints, &old));
    CHECK_INT(ints[0], ==, nprocs);
    CHECK_INT(ints[1], ==, r);
    CHECK_INT(ints[2], ==, ndims);
    for (int d = 0; d < ndims; ++d) {
      CHECK_INT(ints[3 + d], ==, gsizes[d]);
      CHECK_INT(ints[3 + ndims + d], ==, distribs[d]);
      CHECK_INT(ints[3 + 2 * ndims + d], ==, dargs[d]);
      CHECK_INT(ints[3 + 3 * ndims + d], ==, psizes[d]);
    }
    CHECK_INT(ints[3 + 4 * ndims], ==, order);
    CHECK(old == MPI_INT);
    CHECK_MPI(MPI_Type_free(&t));
  }
  free(global);
  free(packed);
  free(want);
}

static void check_darray(void) {
  const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE,
            D = MPI_DISTRIBUTE_DFLT_DARG;
  for (int o = 0; o < 2; ++o) {
    int order = o ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
    {
      int g[2] = {10, 7}, dist[2] = {B, C}, darg[2] = {D, D}, p[2] = {2, 3};
      check_darray_case(2, g, dist, darg, p, order);
    }
    {
      int g[2] = {10, 7}, dist[2] = {C, B}, darg[2] = {2, 4}, p[2] = {3, 2};
      check_darray_case(2, g, dist, darg, p, order);
    }
    {
      int g[3] = {5, 4, 6}, dist[3] = {N, B, C}, darg[3] = {D, D, 2}, p[3] = {1, 2, 2};
      check_darray_case(3, g, dist, darg, p, order);
    }
    {
      int g[3] = {3, 5, 4}, dist[3] = {C, C, B}, darg[3] = {D, 2, D}, p[3] = {2, 2, 1};
      check_darray_case(3, g, dist, darg, p, order);
    }
    {
      int g[1] = {17}, dist[1] = {C}, darg[1] = {3}, p[1] = {4};
      check_darray_case(1, g, dist, darg, p, order);
    }
    { /* 5 over 4 processes in blocks of 2: the last one gets nothing */
      int g[1] = {5}, dist[1] = {B}, darg[1] = {D}, p[1] = {4};
      check_darray_case(1, g, dist, darg, p, order);
    }
  }
  /* A darray over this job's ranks, used to gather a global array in pieces. */
  int dims[2] = {0, 0};
  CHECK_MPI(MPI_Dims_create(size_, 2, dims));
  int g[2] = {6, 5}, dist[2] = {B, C}, darg[2] = {D, D};
  check_darray_case(2, g, dist, darg, dims, MPI_ORDER_C);
}

/* ---- external32 --------------------------------------------------------------------------- */

static void check_bytes(const unsigned char *got, const unsigned char *want, int n,
                        const char *what) {
  for (int i = 0; i < n; ++i)
    CHECK_MSG(got[i] == want[i], "%s: byte %d is %02x, want %02x", what, i, got[i], want[i]);
}

static void check_external32(void) {
  unsigned char buf[256];
  MPI_Aint pos = 0, size;
  int iv[2] = {0x01020304, -2};
  CHECK_MPI(MPI_Pack_external("external32", iv, 2, MPI_INT, buf, sizeof buf, &pos));
  CHECK_INT(pos, ==, 8);
  const unsigned char wint[8] = {1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe};
  check_bytes(buf, wint, 8, "MPI_INT");
  /* MPI_LONG is 4 bytes in external32. */
  long lv[2] = {-2, 0x7f000001};
  pos = 0;
  CHECK_MPI(MPI_Pack_external_size("external32", 2, MPI_LONG, &size));
  CHECK_INT(size, ==, 8);
  CHECK_MPI(MPI_Pack_external("external32", lv, 2, MPI_LONG, buf, sizeof buf, &pos));
  const unsigned char wlong[8] = {0xff, 0xff, 0xff, 0xfe, 0x7f, 0, 0, 1};
  check_bytes(buf, wlong, 8, "MPI_LONG");
  long lback[2] = {0, 0};
  pos = 0;
  CHECK_MPI(MPI_Unpack_external("external32", buf, 8, &pos, lback, 2, MPI_LONG));
  CHECK(lback[0] == -2 && lback[1] == 0x7f000001);
  double dv = 1.0;
  float fv = 1.5f;
  short sv = -3;
  pos = 0;
  CHECK_MPI(MPI_Pack_external("external32", &dv, 1, MPI_DOUBLE, buf, sizeof buf, &pos));
  CHECK_MPI(MPI_Pack_external("external32", &fv, 1, MPI_FLOAT, buf, sizeof buf, &pos));
  CHECK_MPI(MPI_Pack_external("external32", &sv, 1, MPI_SHORT, buf, sizeof buf, &pos));
  CHECK_INT(pos, ==, 14);
  const unsigned char wmix[14] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0x3f, 0xc0, 0, 0, 0xff, 0xfd};
  check_bytes(buf, wmix, 14, "double, float, short");
  /* long double: IEEE binary128. */
  long double ld = 1.5L, ldback = 0;
  pos = 0;
  CHECK_MPI(MPI_Pack_external_size("external32", 1, MPI_LONG_DOUBLE, &size));
  CHECK_INT(size, ==, 16);
  CHECK_MPI(MPI_Pack_external("external32", &ld, 1, MPI_LONG_DOUBLE, buf, sizeof buf, &pos));
  const unsigned char wld[16] = {0x3f, 0xff, 0x80, 0};
  check_bytes(buf, wld, 16, "MPI_LONG_DOUBLE");
  pos = 0;
  CHECK_MPI(MPI_Unpack_external("external32", buf, 16, &pos, &ldback, 1, MPI_LONG_DOUBLE));
  CHECK(ldback == 1.5L);
#ifndef MPICH_VERSION /* MPICH 4.0 traps in MPI_Pack_external_size on a struct */
  /* A struct with padding in memory packs without gaps: char, int, double = 13 bytes. */
  struct S {
    char c;
    int i;
    double d;
  } s[2] = {{'A', 258, -2.0}, {'B', -1, 0.5}}, sback[2];
  int lens[3] = {1, 1, 1};
  MPI_Aint disps[3] = {offsetof(struct S, c), offsetof(struct S, i), offsetof(struct S, d)};
  MPI_Datatype types[3] = {MPI_CHAR, MPI_INT, MPI_DOUBLE}, st;
  CHECK_MPI(MPI_Type_create_struct(3, lens, disps, types, &st));
  CHECK_MPI(MPI_Type_commit(&st));
  CHECK_MPI(MPI_Pack_external_size("external32", 2, st, &size));
  CHECK_INT(size, ==, 26);
  pos = 0;
  CHECK_MPI(MPI_Pack_external("external32", s, 2, st, buf, sizeof buf, &pos));
  CHECK_INT(pos, ==, 26);
  const unsigned char wst[26] = {'A', 0, 0, 1, 2, 0xc0, 0, 0, 0, 0, 0, 0, 0,
                                 'B', 0xff, 0xff, 0xff, 0xff, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0};
  check_bytes(buf, wst, 26, "struct");
  memset(sback, 0, sizeof sback);
  pos = 0;
  CHECK_MPI(MPI_Unpack_external("external32", buf, 26, &pos, sback, 2, st));
  CHECK_INT(pos, ==, 26);
  for (int k = 0; k < 2; ++k)
    CHECK(sback[k].c == s[k].c && sback[k].i == s[k].i && sback[k].d == s[k].d);
  CHECK_MPI(MPI_Type_free(&st));
#endif
  /* A vector of ints: elements 0 and 2. */
  MPI_Datatype v;
  int va[3] = {7, 8, 9}, vback[3] = {0, -1, 0};
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
  CHECK_MPI(MPI_Type_commit(&v));
  pos = 0;
  CHECK_MPI(MPI_Pack_external("external32", va, 1, v, buf, sizeof buf, &pos));
  const unsigned char wv[8] = {0, 0, 0, 7, 0, 0, 0, 9};
  check_bytes(buf, wv, 8, "vector");
  pos = 0;
  CHECK_MPI(MPI_Unpack_external("external32", buf, 8, &pos, vback, 1, v));
  CHECK(vback[0] == 7 && vback[1] == -1 && vback[2] == 9);
  CHECK_MPI(MPI_Type_free(&v));
  /* Fortran types: INTEGER 4 bytes, COMPLEX two reals. */
  int32_t fi = -5;
  cfloat fc = {1.0f, -1.0f};
  pos = 0;
  CHECK_MPI(MPI_Pack_external("external32", &fi, 1, MPI_INTEGER, buf, sizeof buf, &pos));
  CHECK_MPI(MPI_Pack_external("external32", &fc, 1, MPI_COMPLEX, buf, sizeof buf, &pos));
  const unsigned char wf[12] = {0xff, 0xff, 0xff, 0xfb, 0x3f, 0x80, 0, 0, 0xbf, 0x80, 0, 0};
#ifdef MPICH_VERSION /* MPICH 4.0 swaps a complex number as one 8-byte value */
  check_bytes(buf, wf, 4, "INTEGER");
#else
  check_bytes(buf, wf, 12, "INTEGER, COMPLEX");
#endif
  /* Not enough room, and a representation other than external32. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
#ifndef MPICH_VERSION /* MPICH 4.0 checks neither outsize nor the datarep */
  pos = 0;
  CHECK(MPI_Pack_external("external32", iv, 2, MPI_INT, buf, 6, &pos) != MPI_SUCCESS);
  int cls;
  int rc = MPI_Pack_external_size("xdr", 1, MPI_INT, &size);
  MPI_Error_class(rc, &cls);
  CHECK_INT(cls, ==, MPI_ERR_UNSUPPORTED_DATAREP);
#endif
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

/* ---- MPI-1 names ------------------------------------------------------------------------ */
#ifndef OPEN_MPI /* Open MPI's mpi.h turns these names into compile errors */

static int mpi1_handler_calls_;
static void mpi1_handler(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  (void)code;
  ++mpi1_handler_calls_;
}

static void check_mpi1_names(void) {
  struct {
    int i;
    double d[2];
  } rec[3];
  memset(rec, 0, sizeof rec);
  MPI_Aint base, at_d, disps[2];
  CHECK_MPI(MPI_Address(&rec[0], &base));
  CHECK_MPI(MPI_Address(&rec[0].d, &at_d));
  CHECK_INT(at_d - base, ==, offsetof(__typeof__(rec[0]), d));
  int lens[2] = {1, 2};
  disps[0] = 0;
  disps[1] = at_d - base;
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, st, sized, hi;
  CHECK_MPI(MPI_Type_struct(2, lens, disps, types, &st));
  CHECK_MPI(MPI_Type_create_resized(st, 0, sizeof rec[0], &sized));
  CHECK_MPI(MPI_Type_commit(&sized));
  MPI_Aint extent = 0, lb = -1, ub = 0;
  CHECK_MPI(MPI_Type_extent(sized, &extent));
  CHECK_INT(extent, ==, sizeof rec[0]);
  CHECK_MPI(MPI_Type_lb(sized, &lb));
  CHECK_INT(lb, ==, 0);
  CHECK_MPI(MPI_Type_ub(sized, &ub));
  CHECK_INT(ub, ==, sizeof rec[0]);
  int ni, na, nd, combiner;
  CHECK_MPI(MPI_Type_get_envelope(st, &ni, &na, &nd, &combiner));
  CHECK_INT(combiner, ==, MPI_COMBINER_STRUCT);
  /* hindexed: records 0 and 2 of three doubles each */
  double v[9], w[9];
  int blocks[2] = {3, 3};
  MPI_Aint hd[2] = {0, 6 * sizeof(double)};
  CHECK_MPI(MPI_Type_hindexed(2, blocks, hd, MPI_DOUBLE, &hi));
  CHECK_MPI(MPI_Type_commit(&hi));
  CHECK_MPI(MPI_Type_get_envelope(hi, &ni, &na, &nd, &combiner));
  CHECK_INT(combiner, ==, MPI_COMBINER_HINDEXED);
  for (int k = 0; k < 9; ++k) {
    v[k] = rank_ * 100 + k;
    w[k] = -1;
  }
  CHECK_MPI(MPI_Sendrecv(v, 1, hi, next_, 41, w, 1, hi, prev_, 41, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  for (int k = 0; k < 9; ++k)
    CHECK_INT(w[k], ==, (k >= 3 && k < 6) ? -1 : prev_ * 100 + k);
  for (int k = 0; k < 3; ++k) {
    rec[k].i = rank_ + k;
    rec[k].d[0] = rec[k].d[1] = rank_ * 0.5 + k;
  }
  __typeof__(rec[0]) got[3];
  CHECK_MPI(MPI_Sendrecv(rec, 3, sized, next_, 42, got, 3, sized, prev_, 42, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  for (int k = 0; k < 3; ++k) {
    CHECK_INT(got[k].i, ==, prev_ + k);
    CHECK(got[k].d[1] == prev_ * 0.5 + k);
  }
  MPI_Type_free(&st);
  MPI_Type_free(&sized);
  MPI_Type_free(&hi);
  /* error handlers by their old names */
  MPI_Errhandler eh, old, now;
  CHECK_MPI(MPI_Errhandler_create(mpi1_handler, &eh));
  CHECK_MPI(MPI_Errhandler_get(MPI_COMM_SELF, &old));
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_SELF, eh));
  CHECK_MPI(MPI_Errhandler_get(MPI_COMM_SELF, &now));
  CHECK(now == eh);
  MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_OTHER);
  CHECK_INT(mpi1_handler_calls_, ==, 1);
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_SELF, old));
  MPI_Errhandler_free(&now);
  MPI_Errhandler_free(&old);
  MPI_Errhandler_free(&eh);
}
#else
static void check_mpi1_names(void) {}
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ + size_ - 1) % size_;
  check_char_reductions();
#ifndef MPICH_VERSION /* MPICH 4.0 here puts every rank's accumulates into rank 0's window */
  check_char_accumulate();
#else
  (void)check_char_accumulate;
#endif
  check_fortran_p2p();
  check_fortran_reductions();
  check_fortran_names();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  check_match_size_and_f90();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  check_type_attributes();
  check_darray();
  check_external32();
  check_mpi1_names();
  jobs_done("job_dtype_extras");
  MPI_Finalize();
  return 0;
}
