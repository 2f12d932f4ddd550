/* Large counts (the MPI-4 _c forms) of the datatype, status and packing calls:
 * - a type of 3e9 bytes (MPI_Type_contiguous_c) and others whose block lengths, strides,
 *   displacements, sizes or extents do not fit an int: MPI_Type_size_c and the _c extents
 *   report them while MPI_Type_size says MPI_UNDEFINED and MPI_Pack_size fails; no memory is
 *   touched for them;
 * - each _c constructor lays out the same type as its int form given the same arguments
 *   (size, bounds and packed bytes), and its envelope and contents come back through
 *   MPI_Type_get_envelope_c / _get_contents_c as MPI_Count "large counts", while the int
 *   MPI_Type_get_envelope / _get_contents refuse it with MPI_ERR_TYPE; a type from an int
 *   constructor decodes the same through both, with no large counts;
 * - MPI_Get_count_c / MPI_Get_elements_c after a real receive and after
 *   MPI_Status_set_elements_c with counts above INT_MAX;
 * - MPI_Pack_c / MPI_Unpack_c / MPI_Pack_size_c and the external32 _c forms round-trip a
 *   derived type and produce the same bytes as the int forms;
 * - negative counts and other bad arguments fail with the right class, naming the _c call and
 *   the bad value. */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "jobs_util.h"

static int rank_, size_;

static const MPI_Count kTwo31 = (MPI_Count)1 << 31;

/* ---- types larger than an int can describe ------------------------------------------------ */

static void check_bounds(MPI_Datatype t, MPI_Count size, MPI_Count lb, MPI_Count extent,
                         MPI_Count true_lb, MPI_Count true_extent, const char *what) {
  MPI_Count s, l, e, tl, te;
  CHECK_MPI(MPI_Type_size_c(t, &s));
  CHECK_MPI(MPI_Type_get_extent_c(t, &l, &e));
  CHECK_MPI(MPI_Type_get_true_extent_c(t, &tl, &te));
  CHECK_MSG(s == size && l == lb && e == extent && tl == true_lb && te == true_extent,
            "%s: size %lld lb %lld extent %lld true_lb %lld true_extent %lld, want %lld %lld "
            "%lld %lld %lld",
            what, (long long)s, (long long)l, (long long)e, (long long)tl, (long long)te,
            (long long)size, (long long)lb, (long long)extent, (long long)true_lb,
            (long long)true_extent);
  MPI_Count sx;
  CHECK_MPI(MPI_Type_size_x(t, &sx));
  CHECK_INT(sx, ==, size);
  int si = 0;
  CHECK_MPI(MPI_Type_size(t, &si));
  CHECK_MSG(si == (size > INT_MAX ? MPI_UNDEFINED : (int)size),
            "%s: MPI_Type_size gave %d for a size of %lld", what, si, (long long)size);
}

static void check_big_types(void) {
  const MPI_Count n = 3000000000LL;
  MPI_Datatype big;
  CHECK_MPI(MPI_Type_contiguous_c(n, MPI_BYTE, &big));
  CHECK_MPI(MPI_Type_commit(&big));
  check_bounds(big, n, 0, n, 0, n, "contiguous_c of 3e9 bytes");

  /* The int constructors keep the width of what they are built from. */
  MPI_Datatype two;
  CHECK_MPI(MPI_Type_contiguous(2, big, &two));
  check_bounds(two, 2 * n, 0, 2 * n, 0, 2 * n, "MPI_Type_contiguous(2) of it");
  MPI_Count ps = 0;
  CHECK_MPI(MPI_Pack_size_c(2, big, MPI_COMM_WORLD, &ps));
  CHECK_INT(ps, ==, 2 * n);
  int psi = 0;
  CHECK_ERR_CLASS(MPI_Pack_size(1, big, MPI_COMM_WORLD, &psi), MPI_ERR_COUNT);
  MPI_Count es = 0;
  CHECK_MPI(MPI_Pack_external_size_c("external32", 2, big, &es));
  CHECK_INT(es, ==, 2 * n);
  CHECK_MPI(MPI_Type_free(&two));
  CHECK_MPI(MPI_Type_free(&big));

  /* A block length above INT_MAX, a stride of 2^32 bytes. */
  MPI_Datatype hv;
  CHECK_MPI(MPI_Type_create_hvector_c(2, kTwo31 + 1, 2 * kTwo31, MPI_BYTE, &hv));
  check_bounds(hv, 2 * (kTwo31 + 1), 0, 3 * kTwo31 + 1, 0, 3 * kTwo31 + 1, "hvector_c");
  CHECK_MPI(MPI_Type_free(&hv));

  /* A stride in elements whose byte distance exceeds 2^32. */
  MPI_Datatype v;
  CHECK_MPI(MPI_Type_vector_c(3, 2, kTwo31, MPI_INT, &v));
  check_bounds(v, 24, 0, 2 * kTwo31 * 4 + 8, 0, 2 * kTwo31 * 4 + 8, "vector_c");
  CHECK_MPI(MPI_Type_free(&v));

  /* A displacement of 2^33 bytes. */
  const MPI_Count bl[2] = {2, 3}, disp[2] = {0, 4 * kTwo31};
  MPI_Datatype hi;
  CHECK_MPI(MPI_Type_create_hindexed_c(2, bl, disp, MPI_INT, &hi));
  check_bounds(hi, 20, 0, 4 * kTwo31 + 12, 0, 4 * kTwo31 + 12, "hindexed_c");
  CHECK_MPI(MPI_Type_free(&hi));

  /* A subarray of an array longer than INT_MAX, starting beyond it. */
  const MPI_Count sizes[1] = {kTwo31 + 8}, subs[1] = {4}, starts[1] = {kTwo31};
  MPI_Datatype sub;
  CHECK_MPI(MPI_Type_create_subarray_c(1, sizes, subs, starts, MPI_ORDER_C, MPI_BYTE, &sub));
  check_bounds(sub, 4, 0, kTwo31 + 8, kTwo31, 4, "subarray_c");
  CHECK_MPI(MPI_Type_free(&sub));

  /* A darray over a global array longer than INT_MAX. */
  const MPI_Count gs[1] = {2 * kTwo31};
  const int dist[1] = {MPI_DISTRIBUTE_BLOCK}, darg[1] = {MPI_DISTRIBUTE_DFLT_DARG},
            ps1[1] = {size_};
  MPI_Datatype da;
  CHECK_MPI(MPI_Type_create_darray_c(size_, rank_, 1, gs, dist, darg, ps1, MPI_ORDER_C, MPI_BYTE,
                                     &da));
  const MPI_Count blk = (2 * kTwo31 + size_ - 1) / size_;
  const MPI_Count mine = rank_ == size_ - 1 ? 2 * kTwo31 - blk * rank_ : blk;
  check_bounds(da, mine, 0, 2 * kTwo31, blk * rank_, mine, "darray_c");
  CHECK_MPI(MPI_Type_free(&da));

  /* An extent above INT_MAX set by hand. */
  MPI_Datatype r;
  CHECK_MPI(MPI_Type_create_resized_c(MPI_INT, -8, 2 * kTwo31, &r));
  check_bounds(r, 4, -8, 2 * kTwo31, 0, 4, "resized_c");
  MPI_Aint lb = 0, ext = 0;
  CHECK_MPI(MPI_Type_get_extent(r, &lb, &ext));
  CHECK_INT(ext, ==, 2 * kTwo31);
  CHECK_MPI(MPI_Type_free(&r));
}

/* ---- each _c constructor: same layout as the int form, envelope and contents ---------------- */

/* a and b have the same size, bounds and packed bytes (a buffer covering both is packed). */
static void check_same_layout(MPI_Datatype a, MPI_Datatype b, const char *what) {
  CHECK_MPI(MPI_Type_commit(&a));
  CHECK_MPI(MPI_Type_commit(&b));
  MPI_Count sa, sb, la, ea, lb, eb, tla, tea, tlb, teb;
  CHECK_MPI(MPI_Type_size_c(a, &sa));
  CHECK_MPI(MPI_Type_size_c(b, &sb));
  CHECK_MPI(MPI_Type_get_extent_c(a, &la, &ea));
  CHECK_MPI(MPI_Type_get_extent_c(b, &lb, &eb));
  CHECK_MPI(MPI_Type_get_true_extent_c(a, &tla, &tea));
  CHECK_MPI(MPI_Type_get_true_extent_c(b, &tlb, &teb));
  CHECK_MSG(sa == sb && la == lb && ea == eb && tla == tlb && tea == teb,
            "%s: the _c type (size %lld, lb %lld, extent %lld, true %lld+%lld) differs from "
            "the int one (%lld, %lld, %lld, %lld+%lld)",
            what, (long long)sa, (long long)la, (long long)ea, (long long)tla, (long long)tea,
            (long long)sb, (long long)lb, (long long)eb, (long long)tlb, (long long)teb);
  CHECK_MSG(sa > 0 && tla >= 0 && tla + tea < 4096, "%s: unexpected test type", what);
  unsigned char src[4096], pa[4096], pb[4096];
  jobs_fill(src, sizeof src, 77);
  MPI_Count pos_a = 0;
  int pos_b = 0;
  CHECK_MPI(MPI_Pack_c(src, 1, a, pa, sizeof pa, &pos_a, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Pack(src, 1, b, pb, sizeof pb, &pos_b, MPI_COMM_WORLD));
  CHECK_INT(pos_a, ==, sa);
  CHECK_INT(pos_b, ==, sa);
  CHECK_MSG(memcmp(pa, pb, (size_t)sa) == 0, "%s: packed bytes differ", what);
}

/* The _c envelope and contents of t; the int forms must refuse it. */
static void check_large_contents(MPI_Datatype t, int combiner, MPI_Count ni, const int *ints,
                                 MPI_Count nl, const MPI_Count *large, MPI_Count nd,
                                 const MPI_Datatype *types, const char *what) {
  MPI_Count gi, ga, gl, gd;
  int comb;
  CHECK_MPI(MPI_Type_get_envelope_c(t, &gi, &ga, &gl, &gd, &comb));
  CHECK_MSG(comb == combiner && gi == ni && ga == 0 && gl == nl && gd == nd,
            "%s: envelope_c combiner %d, %lld ints, %lld addresses, %lld large counts, %lld "
            "types; want %d, %lld, 0, %lld, %lld",
            what, comb, (long long)gi, (long long)ga, (long long)gl, (long long)gd, combiner,
            (long long)ni, (long long)nl, (long long)nd);
  int ci[32];
  MPI_Aint ca[4];
  MPI_Count cl[32];
  MPI_Datatype cd[8];
  CHECK(ni <= 32 && nl <= 32 && nd <= 8);
  CHECK_MPI(MPI_Type_get_contents_c(t, 32, 4, 32, 8, ci, ca, cl, cd));
  for (MPI_Count i = 0; i < ni; ++i)
    CHECK_MSG(ci[i] == ints[i], "%s: integer %lld is %d, want %d", what, (long long)i, ci[i],
              ints[i]);
  for (MPI_Count i = 0; i < nl; ++i)
    CHECK_MSG(cl[i] == large[i], "%s: large count %lld is %lld, want %lld", what, (long long)i,
              (long long)cl[i], (long long)large[i]);
  for (MPI_Count i = 0; i < nd; ++i)
    CHECK_MSG(cd[i] == types[i], "%s: datatype %lld differs", what, (long long)i);
  /* Arrays one entry too small. */
  if (nl > 0)
    CHECK_ERR_CLASS(MPI_Type_get_contents_c(t, 32, 4, nl - 1, 8, ci, ca, cl, cd), MPI_ERR_ARG);
  int a, b, c, d;
  CHECK_ERR_CLASS(MPI_Type_get_envelope(t, &a, &b, &c, &d), MPI_ERR_TYPE);
  CHECK_ERR_CLASS(MPI_Type_get_contents(t, 32, 4, 8, ci, ca, cd), MPI_ERR_TYPE);
  /* The message says what to call instead. */
  int rc = MPI_Type_get_envelope(t, &a, &b, &c, &d);
  CHECK_MSG(strstr(jobs_error_text(rc), "MPI_Type_get_envelope_c") != NULL,
            "%s: MPI_Type_get_envelope's error does not point at the _c form: %s", what,
            jobs_error_text(rc));
}

static void check_constructors_c(void) {
  MPI_Datatype c, i;

  CHECK_MPI(MPI_Type_contiguous_c(5, MPI_INT, &c));
  CHECK_MPI(MPI_Type_contiguous(5, MPI_INT, &i));
  check_same_layout(c, i, "contiguous");
  const MPI_Count l_contig[] = {5};
  const MPI_Datatype t_int[] = {MPI_INT};
  check_large_contents(c, MPI_COMBINER_CONTIGUOUS, 0, NULL, 1, l_contig, 1, t_int, "contiguous_c");
  MPI_Type_free(&c);
  MPI_Type_free(&i);

  CHECK_MPI(MPI_Type_vector_c(3, 2, 5, MPI_DOUBLE, &c));
  CHECK_MPI(MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &i));
  check_same_layout(c, i, "vector");
  const MPI_Count l_vec[] = {3, 2, 5};
  const MPI_Datatype t_dbl[] = {MPI_DOUBLE};
  check_large_contents(c, MPI_COMBINER_VECTOR, 0, NULL, 3, l_vec, 1, t_dbl, "vector_c");
  MPI_Type_free(&c);
  MPI_Type_free(&i);

  CHECK_MPI(MPI_Type_create_hvector_c(3, 2, 20, MPI_INT, &c));
  CHECK_MPI(MPI_Type_create_hvector(3, 2, 20, MPI_INT, &i));
  check_same_layout(c, i, "hvector");
  const MPI_Count l_hvec[] = {3, 2, 20};
  check_large_contents(c, MPI_COMBINER_HVECTOR, 0, NULL, 3, l_hvec, 1, t_int, "hvector_c");
  MPI_Type_free(&c);
  MPI_Type_free(&i);

  const MPI_Count blc[3] = {2, 1, 3}, dc[3] = {0, 4, 9};
  const int bli[3] = {2, 1, 3}, di[3] = {0, 4, 9};
  const MPI_Aint da[3] = {0, 16, 36};
  const MPI_Count dac[3] = {0, 16, 36};
  CHECK_MPI(MPI_Type_indexed_c(3, blc, dc, MPI_INT, &c));
  CHECK_MPI(MPI_Type_indexed(3, bli, di, MPI_INT, &i));
  check_same_layout(c, i, "indexed");
  const MPI_Count l_idx[] = {3, 2, 1, 3, 0, 4, 9};
  check_large_contents(c, MPI_COMBINER_INDEXED, 0, NULL, 7, l_idx, 1, t_int, "indexed_c");
  MPI_Type_free(&c);
  MPI_Type_free(&i);

  CHECK_MPI(MPI_Type_create_hindexed_c(3, blc, dac, MPI_INT, &c));
  CHECK_MPI(MPI_Type_create_hindexed(3, bli, da, MPI_INT, &i));
  check_same_layout(c, i, "hindexed");
  const MPI_Count l_hidx[] = {3, 2, 1, 3, 0, 16, 36};
  check_large_contents(c, MPI_COMBINER_HINDEXED, 0, NULL, 7, l_hidx, 1, t_int, "hindexed_c");
  MPI_Type_free(&c);
  MPI_Type_free(&i);

  CHECK_MPI(MPI_Type_create_indexed_block_c(3, 2, dc, MPI_SHORT, &c));
  CHECK_MPI(MPI_Type_create_indexed_block(3, 2, di, MPI_SHORT, &i));
  check_same_layout(c, i, "indexed_block");
  const MPI_Count l_ib[] = {3, 2, 0, 4, 9};
  const MPI_Datatype t_short[] = {MPI_SHORT};
  check_large_contents(c, MPI_COMBINER_INDEXED_BLOCK, 0, NULL, 5, l_ib, 1, t_short,
                       "indexed_block_c");
  MPI_Type_free(&c);
  MPI_Type_free(&i);

  CHECK_MPI(MPI_Type_create_hindexed_block_c(3, 2, dac, MPI_INT, &c));
  CHECK_MPI(MPI_Type_create_hindexed_block(3, 2, da, MPI_INT, &i));
  check_same_layout(c, i, "hindexed_block");
  const MPI_Count l_hib[] = {3, 2, 0, 16, 36};
  check_large_contents(c, MPI_COMBINER_HINDEXED_BLOCK, 0, NULL, 5, l_hib, 1, t_int,
                       "hindexed_block_c");
  MPI_Type_free(&c);
  MPI_Type_free(&i);

  const MPI_Datatype st[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  const MPI_Count sblc[3] = {1, 2, 3}, sdc[3] = {0, 8, 24};
  const int sbli[3] = {1, 2, 3};
  const MPI_Aint sdi[3] = {0, 8, 24};
  CHECK_MPI(MPI_Type_create_struct_c(3, sblc, sdc, st, &c));
  CHECK_MPI(MPI_Type_create_struct(3, sbli, sdi, st, &i));
  check_same_layout(c, i, "struct");
  const MPI_Count l_st[] = {3, 1, 2, 3, 0, 8, 24};
  check_large_contents(c, MPI_COMBINER_STRUCT, 0, NULL, 7, l_st, 3, st, "struct_c");
  MPI_Type_free(&c);
  MPI_Type_free(&i);

  const MPI_Count szc[2] = {4, 5}, subc[2] = {2, 3}, stc[2] = {1, 2};
  const int szi[2] = {4, 5}, subi[2] = {2, 3}, sti[2] = {1, 2};
  CHECK_MPI(MPI_Type_create_subarray_c(2, szc, subc, stc, MPI_ORDER_FORTRAN, MPI_INT, &c));
  CHECK_MPI(MPI_Type_create_subarray(2, szi, subi, sti, MPI_ORDER_FORTRAN, MPI_INT, &i));
  check_same_layout(c, i, "subarray");
  const int i_sub[] = {2, MPI_ORDER_FORTRAN};
  const MPI_Count l_sub[] = {4, 5, 2, 3, 1, 2};
  check_large_contents(c, MPI_COMBINER_SUBARRAY, 2, i_sub, 6, l_sub, 1, t_int, "subarray_c");
  MPI_Type_free(&c);
  MPI_Type_free(&i);

  const MPI_Count gsc[2] = {2 * size_, 8}; /* a block of 2 rows for every rank */
  const int gsi[2] = {2 * size_, 8}, dist[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
            darg[2] = {2, MPI_DISTRIBUTE_DFLT_DARG}, psz[2] = {size_, 1};
  CHECK_MPI(MPI_Type_create_darray_c(size_, rank_, 2, gsc, dist, darg, psz, MPI_ORDER_C,
                                     MPI_DOUBLE, &c));
  CHECK_MPI(MPI_Type_create_darray(size_, rank_, 2, gsi, dist, darg, psz, MPI_ORDER_C,
                                   MPI_DOUBLE, &i));
  check_same_layout(c, i, "darray");
  const int i_da[] = {size_,
                      rank_,
                      2,
                      MPI_DISTRIBUTE_CYCLIC,
                      MPI_DISTRIBUTE_BLOCK,
                      2,
                      MPI_DISTRIBUTE_DFLT_DARG,
                      size_,
                      1,
                      MPI_ORDER_C};
  check_large_contents(c, MPI_COMBINER_DARRAY, 10, i_da, 2, gsc, 1, t_dbl, "darray_c");
  MPI_Type_free(&c);
  MPI_Type_free(&i);

  CHECK_MPI(MPI_Type_create_resized_c(MPI_INT, -4, 12, &c));
  CHECK_MPI(MPI_Type_create_resized(MPI_INT, -4, 12, &i));
  check_same_layout(c, i, "resized");
  const MPI_Count l_res[] = {-4, 12};
  check_large_contents(c, MPI_COMBINER_RESIZED, 0, NULL, 2, l_res, 1, t_int, "resized_c");
  MPI_Type_free(&i);

  /* A dup of a _c type has no large counts of its own: the int forms describe it. */
  MPI_Datatype dup;
  CHECK_MPI(MPI_Type_dup(c, &dup));
  int ni, na, nd, comb;
  CHECK_MPI(MPI_Type_get_envelope(dup, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_DUP && ni == 0 && na == 0 && nd == 1);
  MPI_Type_free(&dup);
  MPI_Type_free(&c);

  /* A type from an int constructor: the _c forms return what the int forms do, no large
   * counts. */
  CHECK_MPI(MPI_Type_create_hindexed(3, bli, da, MPI_INT, &i));
  MPI_Count gi, ga, gl, gd;
  CHECK_MPI(MPI_Type_get_envelope_c(i, &gi, &ga, &gl, &gd, &comb));
  CHECK_MPI(MPI_Type_get_envelope(i, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_HINDEXED && gi == ni && ga == na && gd == nd && gl == 0);
  CHECK(ni == 4 && na == 3 && nd == 1);
  int ci[4], ci2[4];
  MPI_Aint ca[3], ca2[3];
  MPI_Datatype cd[1], cd2[1];
  CHECK_MPI(MPI_Type_get_contents_c(i, 4, 3, 0, 1, ci, ca, NULL, cd));
  CHECK_MPI(MPI_Type_get_contents(i, 4, 3, 1, ci2, ca2, cd2));
  CHECK(memcmp(ci, ci2, sizeof ci) == 0 && memcmp(ca, ca2, sizeof ca) == 0);
  CHECK(ci[0] == 3 && ci[1] == 2 && ci[3] == 3 && ca[2] == 36 && cd[0] == MPI_INT);
  MPI_Type_free(&i);

  /* Predefined types: named, no contents. */
  CHECK_MPI(MPI_Type_get_envelope_c(MPI_INT, &gi, &ga, &gl, &gd, &comb));
  CHECK(comb == MPI_COMBINER_NAMED && gi == 0 && ga == 0 && gl == 0 && gd == 0);
  CHECK_ERR_CLASS(MPI_Type_get_contents_c(MPI_INT, 0, 0, 0, 0, NULL, NULL, NULL, NULL),
                  MPI_ERR_TYPE);
}

/* ---- status: counts from a receive and from MPI_Status_set_elements_c ----------------------- */

static void check_status_counts(void) {
  /* 5 structs {int; double} (2 basic elements each) to the next rank. */
  MPI_Datatype s;
  const MPI_Count bl[2] = {1, 1}, d[2] = {0, 8};
  const MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE};
  CHECK_MPI(MPI_Type_create_struct_c(2, bl, d, ts, &s));
  CHECK_MPI(MPI_Type_commit(&s));
  struct {
    int i;
    double x;
  } out[5], in[8];
  memset(in, 0, sizeof in);
  for (int k = 0; k < 5; ++k) {
    out[k].i = 100 * rank_ + k;
    out[k].x = 0.5 * k + rank_;
  }
  const int next = (rank_ + 1) % size_, prev = (rank_ + size_ - 1) % size_;
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv_c(out, 5, s, next, 7, in, 8, s, prev, 7, MPI_COMM_WORLD, &st));
  for (int k = 0; k < 5; ++k)
    CHECK_MSG(in[k].i == 100 * prev + k && in[k].x == 0.5 * k + prev,
              "struct %d from rank %d: %d %g", k, prev, in[k].i, in[k].x);
  MPI_Count n = -1;
  CHECK_MPI(MPI_Get_count_c(&st, s, &n));
  CHECK_INT(n, ==, 5);
  CHECK_MPI(MPI_Get_elements_c(&st, s, &n));
  CHECK_INT(n, ==, 10);
  CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &n));
  CHECK_INT(n, ==, 60);
  CHECK_MPI(MPI_Get_count_c(&st, MPI_DOUBLE, &n)); /* 60 bytes: not whole doubles */
  CHECK_INT(n, ==, MPI_UNDEFINED);

  /* 10 bytes received as shorts and ints. */
  unsigned char b[10] = {0}, rb[16];
  CHECK_MPI(MPI_Sendrecv(b, 10, MPI_BYTE, next, 8, rb, 16, MPI_BYTE, prev, 8, MPI_COMM_WORLD,
                         &st));
  CHECK_MPI(MPI_Get_count_c(&st, MPI_SHORT, &n));
  CHECK_INT(n, ==, 5);
  CHECK_MPI(MPI_Get_elements_c(&st, MPI_INT, &n));
  CHECK_INT(n, ==, MPI_UNDEFINED);

  /* Counts no int holds. */
  const MPI_Count big = kTwo31 + 5;
  CHECK_MPI(MPI_Status_set_elements_c(&st, MPI_INT, big));
  CHECK_MPI(MPI_Get_elements_c(&st, MPI_INT, &n));
  CHECK_INT(n, ==, big);
  CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &n));
  CHECK_INT(n, ==, big);
  CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &n));
  CHECK_INT(n, ==, 4 * big);
  MPI_Count x = -1;
  CHECK_MPI(MPI_Get_elements_x(&st, MPI_INT, &x));
  CHECK_INT(x, ==, big);
  int ni = 0;
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &ni));
  CHECK_INT(ni, ==, MPI_UNDEFINED);
  CHECK_MPI(MPI_Get_elements(&st, MPI_INT, &ni));
  CHECK_INT(ni, ==, MPI_UNDEFINED);

  /* Basic elements of the struct: an even number is whole structs, an odd one is not. */
  CHECK_MPI(MPI_Status_set_elements_c(&st, s, 2 * big));
  CHECK_MPI(MPI_Get_count_c(&st, s, &n));
  CHECK_INT(n, ==, big);
  CHECK_MPI(MPI_Get_elements_c(&st, s, &n));
  CHECK_INT(n, ==, 2 * big);
  CHECK_MPI(MPI_Status_set_elements_c(&st, s, 2 * big + 1));
  CHECK_MPI(MPI_Get_count_c(&st, s, &n));
  CHECK_INT(n, ==, MPI_UNDEFINED);
  CHECK_MPI(MPI_Get_elements_c(&st, s, &n));
  CHECK_INT(n, ==, 2 * big + 1);

  /* Elements of a 3e9-byte type. */
  MPI_Datatype huge;
  CHECK_MPI(MPI_Type_contiguous_c(3000000000LL, MPI_BYTE, &huge));
  CHECK_MPI(MPI_Type_commit(&huge));
  CHECK_MPI(MPI_Status_set_elements_c(&st, MPI_BYTE, 6000000000LL));
  CHECK_MPI(MPI_Get_count_c(&st, huge, &n));
  CHECK_INT(n, ==, 2);
  CHECK_MPI(MPI_Get_elements_c(&st, huge, &n));
  CHECK_INT(n, ==, 6000000000LL);
  /* Its elements are its 3e9 bytes: one more than a whole type is not a count of it. */
  CHECK_MPI(MPI_Status_set_elements_c(&st, huge, 3000000001LL));
  CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &n));
  CHECK_INT(n, ==, 3000000001LL);
  CHECK_MPI(MPI_Get_count_c(&st, huge, &n));
  CHECK_INT(n, ==, MPI_UNDEFINED);
  CHECK_MPI(MPI_Type_free(&huge));

  CHECK_MPI(MPI_Type_free(&s));
}

/* ---- packing ------------------------------------------------------------------------------- */

static void check_pack_c(void) {
  /* Every other pair of doubles out of 12: a type with gaps. */
  MPI_Datatype v;
  CHECK_MPI(MPI_Type_vector_c(3, 2, 4, MPI_DOUBLE, &v));
  CHECK_MPI(MPI_Type_commit(&v));
  double src[2][12], dst[2][12];
  for (int e = 0; e < 2; ++e)
    for (int k = 0; k < 12; ++k) src[e][k] = 1000.0 * e + k + 0.25 * rank_;
  MPI_Count size = 0;
  CHECK_MPI(MPI_Pack_size_c(2, v, MPI_COMM_WORLD, &size));
  CHECK_INT(size, ==, 2 * 6 * 8);
  unsigned char packed[256], packed_int[256];
  MPI_Count pos = 4; /* after a 4-byte header */
  CHECK_MPI(MPI_Pack_c(src, 2, v, packed, sizeof packed, &pos, MPI_COMM_WORLD));
  CHECK_INT(pos, ==, 4 + size);
  int ipos = 4;
  CHECK_MPI(MPI_Pack(src, 2, v, packed_int, sizeof packed_int, &ipos, MPI_COMM_WORLD));
  CHECK_INT(ipos, ==, pos);
  CHECK_MSG(memcmp(packed + 4, packed_int + 4, (size_t)size) == 0,
            "MPI_Pack_c and MPI_Pack packed different bytes");
  for (int e = 0; e < 2; ++e)
    for (int k = 0; k < 12; ++k) dst[e][k] = -1.0;
  /* The vector's extent is 10 doubles: the second element starts at dst[0][10]. */
  pos = 4;
  CHECK_MPI(MPI_Unpack_c(packed, 4 + size, &pos, dst, 2, v, MPI_COMM_WORLD));
  CHECK_INT(pos, ==, 4 + size);
  const double *s = &src[0][0], *d = &dst[0][0];
  for (int e = 0; e < 2; ++e)
    for (int k = 0; k < 10; ++k) {
      const int at = 10 * e + k;
      const int data = k % 4 < 2 && k < 10;
      CHECK_MSG(d[at] == (data ? s[at] : -1.0), "unpacked double %d: %g, want %g", at, d[at],
                data ? s[at] : -1.0);
    }
  /* Too small a packed buffer. */
  pos = 0;
  CHECK_ERR_CLASS(MPI_Pack_c(src, 2, v, packed, size - 1, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  pos = 1;
  CHECK_ERR_CLASS(MPI_Unpack_c(packed, size, &pos, dst, 2, v, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  CHECK_MPI(MPI_Type_free(&v));

  /* external32 of a struct {int; double; short[2]} built by the _c constructor. */
  struct rec {
    int i;
    double x;
    short h[2];
  } recs[2] = {{0x01020304 + rank_, 1.5, {-2, 0x0506}}, {-7, -0.0625, {0x7fff, 1}}}, back[2];
  const MPI_Count bl[3] = {1, 1, 2};
  const MPI_Count dc[3] = {offsetof(struct rec, i), offsetof(struct rec, x),
                           offsetof(struct rec, h)};
  const MPI_Datatype ts[3] = {MPI_INT, MPI_DOUBLE, MPI_SHORT};
  MPI_Datatype st, sized;
  CHECK_MPI(MPI_Type_create_struct_c(3, bl, dc, ts, &st));
  CHECK_MPI(MPI_Type_create_resized_c(st, 0, sizeof(struct rec), &sized));
  CHECK_MPI(MPI_Type_commit(&sized));
  MPI_Count esize = 0;
  CHECK_MPI(MPI_Pack_external_size_c("external32", 2, sized, &esize));
  CHECK_INT(esize, ==, 2 * (4 + 8 + 2 * 2));
  MPI_Aint esize_int = 0;
  CHECK_MPI(MPI_Pack_external_size("external32", 2, sized, &esize_int));
  CHECK_INT(esize_int, ==, esize);
  unsigned char ext[64], ext_int[64];
  MPI_Count epos = 0;
  CHECK_MPI(MPI_Pack_external_c("external32", recs, 2, sized, ext, sizeof ext, &epos));
  CHECK_INT(epos, ==, esize);
  MPI_Aint epos_int = 0;
  CHECK_MPI(MPI_Pack_external("external32", recs, 2, sized, ext_int, sizeof ext_int, &epos_int));
  CHECK_INT(epos_int, ==, esize);
  CHECK_MSG(memcmp(ext, ext_int, (size_t)esize) == 0,
            "MPI_Pack_external_c and MPI_Pack_external wrote different bytes");
  /* Big-endian: the first int's most significant byte first. */
  CHECK_INT(ext[0], ==, 0x01);
  CHECK_INT(ext[3], ==, 0x04 + rank_);
  memset(back, 0, sizeof back);
  epos = 0;
  CHECK_MPI(MPI_Unpack_external_c("external32", ext, esize, &epos, back, 2, sized));
  CHECK_INT(epos, ==, esize);
  for (int k = 0; k < 2; ++k)
    CHECK_MSG(back[k].i == recs[k].i && back[k].x == recs[k].x && back[k].h[0] == recs[k].h[0] &&
                  back[k].h[1] == recs[k].h[1],
              "external32 record %d came back as %d %g %d %d", k, back[k].i, back[k].x,
              back[k].h[0], back[k].h[1]);
  epos = 0;
  CHECK_ERR_CLASS(MPI_Unpack_external_c("external32", ext, esize - 1, &epos, back, 2, sized),
                  MPI_ERR_TRUNCATE);
  CHECK_ERR_CLASS(MPI_Pack_external_size_c("native", 1, sized, &esize),
                  MPI_ERR_UNSUPPORTED_DATAREP);
  CHECK_MPI(MPI_Type_free(&sized));
  CHECK_MPI(MPI_Type_free(&st));
}

/* ---- bad arguments --------------------------------------------------------------------------- */

/* The call failed with `expected`, and its message names the call and the bad value. */
#define CHECK_ERR_NAMES(call, expected, name, value)                                     \
  do {                                                                                   \
    int rc2_ = (call);                                                                   \
    CHECK_ERR_CLASS(rc2_, expected);                                                     \
    const char *text_ = jobs_error_text(rc2_);                                           \
    CHECK_MSG(strstr(text_, name) && strstr(text_, value),                               \
              "%s: the message \"%s\" should name %s and %s", #call, text_, name, value); \
  } while (0)

static void check_errors(void) {
  MPI_Datatype t = MPI_DATATYPE_NULL;
  const MPI_Count ok[2] = {1, 1}, neg[2] = {1, -3}, disp[2] = {0, 8};
  const MPI_Datatype ts[2] = {MPI_INT, MPI_INT};

  CHECK_ERR_NAMES(MPI_Type_contiguous_c(-1, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_contiguous_c",
                  "-1");
  CHECK_ERR_NAMES(MPI_Type_contiguous_c(-kTwo31 * 4, MPI_INT, &t), MPI_ERR_COUNT,
                  "MPI_Type_contiguous_c", "-8589934592");
  CHECK_ERR_NAMES(MPI_Type_vector_c(-2, 1, 1, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_vector_c",
                  "-2");
  CHECK_ERR_NAMES(MPI_Type_vector_c(2, -kTwo31, 1, MPI_INT, &t), MPI_ERR_ARG, "MPI_Type_vector_c",
                  "-2147483648");
  CHECK_ERR_NAMES(MPI_Type_create_hvector_c(-4, 1, 8, MPI_INT, &t), MPI_ERR_COUNT,
                  "MPI_Type_create_hvector_c", "-4");
  CHECK_ERR_NAMES(MPI_Type_indexed_c(-5, ok, disp, MPI_INT, &t), MPI_ERR_COUNT,
                  "MPI_Type_indexed_c", "-5");
  CHECK_ERR_NAMES(MPI_Type_indexed_c(2, neg, disp, MPI_INT, &t), MPI_ERR_ARG,
                  "MPI_Type_indexed_c", "-3");
  CHECK_ERR_CLASS(MPI_Type_indexed_c(2, ok, NULL, MPI_INT, &t), MPI_ERR_ARG);
  CHECK_ERR_NAMES(MPI_Type_create_hindexed_c(-6, ok, disp, MPI_INT, &t), MPI_ERR_COUNT,
                  "MPI_Type_create_hindexed_c", "-6");
  CHECK_ERR_NAMES(MPI_Type_create_indexed_block_c(-7, 1, disp, MPI_INT, &t), MPI_ERR_COUNT,
                  "MPI_Type_create_indexed_block_c", "-7");
  CHECK_ERR_NAMES(MPI_Type_create_hindexed_block_c(2, -8, disp, MPI_INT, &t), MPI_ERR_ARG,
                  "MPI_Type_create_hindexed_block_c", "-8");
  CHECK_ERR_NAMES(MPI_Type_create_struct_c(-9, ok, disp, ts, &t), MPI_ERR_COUNT,
                  "MPI_Type_create_struct_c", "-9");
  CHECK_ERR_NAMES(MPI_Type_create_struct_c(2, neg, disp, ts, &t), MPI_ERR_ARG,
                  "MPI_Type_create_struct_c", "-3");
  const MPI_Datatype bad_ts[2] = {MPI_INT, MPI_DATATYPE_NULL};
  CHECK_ERR_CLASS(MPI_Type_create_struct_c(2, ok, disp, bad_ts, &t), MPI_ERR_TYPE);
  CHECK_ERR_CLASS(MPI_Type_contiguous_c(1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
  CHECK_ERR_CLASS(MPI_Type_contiguous_c(1, MPI_INT, NULL), MPI_ERR_ARG);

  const MPI_Count sz[1] = {kTwo31 + 2}, sub[1] = {4}, start_bad[1] = {kTwo31};
  CHECK_ERR_NAMES(MPI_Type_create_subarray_c(1, sz, sub, start_bad, MPI_ORDER_C, MPI_BYTE, &t),
                  MPI_ERR_ARG, "MPI_Type_create_subarray_c", "2147483648");
  CHECK_ERR_CLASS(MPI_Type_create_subarray_c(0, sz, sub, start_bad, MPI_ORDER_C, MPI_BYTE, &t),
                  MPI_ERR_DIMS);
  CHECK_ERR_CLASS(MPI_Type_create_subarray_c(1, sz, sub, sub, 12345, MPI_BYTE, &t), MPI_ERR_ARG);
  const MPI_Count g_bad[1] = {0};
  const int dist[1] = {MPI_DISTRIBUTE_BLOCK}, darg[1] = {MPI_DISTRIBUTE_DFLT_DARG},
            psz[1] = {size_};
  CHECK_ERR_NAMES(MPI_Type_create_darray_c(size_, rank_, 1, g_bad, dist, darg, psz, MPI_ORDER_C,
                                           MPI_INT, &t),
                  MPI_ERR_ARG, "MPI_Type_create_darray_c", "gsize 0");
  CHECK_ERR_CLASS(MPI_Type_create_resized_c(MPI_DATATYPE_NULL, 0, 4, &t), MPI_ERR_TYPE);
  CHECK(t == MPI_DATATYPE_NULL);

  MPI_Count n;
  CHECK_ERR_CLASS(MPI_Type_size_c(MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE);
  CHECK_ERR_CLASS(MPI_Type_get_extent_c(MPI_INT, NULL, &n), MPI_ERR_ARG);
  CHECK_ERR_CLASS(MPI_Type_get_true_extent_c(MPI_DATATYPE_NULL, &n, &n), MPI_ERR_TYPE);

  MPI_Status st;
  CHECK_ERR_NAMES(MPI_Status_set_elements_c(&st, MPI_INT, -kTwo31 - 1), MPI_ERR_COUNT,
                  "MPI_Status_set_elements_c", "-2147483649");
  CHECK_ERR_CLASS(MPI_Get_count_c(&st, MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE);
  CHECK_ERR_CLASS(MPI_Get_elements_c(NULL, MPI_INT, &n), MPI_ERR_ARG);

  int buf[4] = {0};
  unsigned char packed[64];
  MPI_Count pos = 0;
  CHECK_ERR_NAMES(MPI_Pack_c(buf, -1, MPI_INT, packed, 64, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT,
                  "MPI_Pack_c", "-1");
  CHECK_ERR_NAMES(MPI_Unpack_c(packed, 64, &pos, buf, -2, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT,
                  "MPI_Unpack_c", "-2");
  pos = -1;
  CHECK_ERR_NAMES(MPI_Pack_c(buf, 1, MPI_INT, packed, 64, &pos, MPI_COMM_WORLD), MPI_ERR_ARG,
                  "MPI_Pack_c", "position -1");
  CHECK_ERR_NAMES(MPI_Pack_size_c(-3, MPI_INT, MPI_COMM_WORLD, &n), MPI_ERR_COUNT,
                  "MPI_Pack_size_c", "-3");
  CHECK_ERR_CLASS(MPI_Pack_size_c(1, MPI_INT, MPI_COMM_NULL, &n), MPI_ERR_COMM);
  pos = 0;
  CHECK_ERR_NAMES(MPI_Pack_external_c("external32", buf, -4, MPI_INT, packed, 64, &pos),
                  MPI_ERR_COUNT, "MPI_Pack_external_c", "-4");
  CHECK_ERR_NAMES(MPI_Unpack_external_c("external32", packed, 64, &pos, buf, -5, MPI_INT),
                  MPI_ERR_COUNT, "MPI_Unpack_external_c", "-5");
  CHECK_ERR_NAMES(MPI_Pack_external_size_c("external32", -6, MPI_INT, &n), MPI_ERR_COUNT,
                  "MPI_Pack_external_size_c", "-6");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  /* Type calls report to MPI_COMM_SELF's handler, the others to MPI_COMM_WORLD's. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  check_big_types();
  check_constructors_c();
  check_status_counts();
  check_pack_c();
  check_errors();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  jobs_done("job_large_count_dt");
  MPI_Finalize();
  return 0;
}
