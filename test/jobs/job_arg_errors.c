/* Argument checking under MPI_ERRORS_RETURN: every invalid argument gives its own error class
 * (RANK, TAG, COUNT, TYPE, COMM, ROOT, OP, BUFFER), MPI_Error_string explains it, nothing is
 * sent, and the communicator keeps working afterwards. Collective calls get the same invalid
 * argument on every rank, so all of them return. */
#include "jobs_util.h"

#include <limits.h>

static int user_op_calls_;

static void dummy_op(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)in, (void)inout, (void)len, (void)type;
  ++user_op_calls_;
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
  CHECK_MSG(eh == MPI_ERRORS_ARE_FATAL, "MPI_COMM_WORLD's default error handler is not "
            "MPI_ERRORS_ARE_FATAL");
  /* Errors on MPI_COMM_NULL are raised on a predefined communicator (WORLD before MPI 4.0,
   * SELF since); both return. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
  CHECK(eh == MPI_ERRORS_RETURN);

  int value = 42, buf[4] = {1, 2, 3, 4}, out[4] = {0, 0, 0, 0};
  MPI_Status st;
  MPI_Request req = MPI_REQUEST_NULL;
  int tag_ub = 0, flag = 0;
  void *attr = NULL;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag));
  CHECK(flag);
  tag_ub = *(int *)attr;

  /* MPI_ERR_RANK */
  CHECK_ERR_CLASS(MPI_Send(&value, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_ERR_CLASS(MPI_Send(&value, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_ERR_CLASS(MPI_Send(&value, 1, MPI_INT, -1000, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_ERR_CLASS(MPI_Recv(&value, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
  CHECK_ERR_CLASS(MPI_Isend(&value, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK);
  CHECK_ERR_CLASS(MPI_Irecv(&value, 1, MPI_INT, -1000, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK);
  CHECK_ERR_CLASS(MPI_Ssend(&value, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_ERR_CLASS(MPI_Probe(size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
  CHECK_ERR_CLASS(MPI_Iprobe(size, 0, MPI_COMM_WORLD, &flag, &st), MPI_ERR_RANK);
  /* MPI_ERR_TAG */
  CHECK_ERR_CLASS(MPI_Send(&value, 1, MPI_INT, rank, -5, MPI_COMM_WORLD), MPI_ERR_TAG);
  CHECK_ERR_CLASS(MPI_Send(&value, 1, MPI_INT, rank, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG);
  if (tag_ub < INT_MAX)
    CHECK_ERR_CLASS(MPI_Send(&value, 1, MPI_INT, rank, tag_ub + 1, MPI_COMM_WORLD), MPI_ERR_TAG);
  CHECK_ERR_CLASS(MPI_Recv(&value, 1, MPI_INT, rank, -5, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
  CHECK_ERR_CLASS(MPI_Isend(&value, 1, MPI_INT, rank, -5, MPI_COMM_WORLD, &req), MPI_ERR_TAG);
  /* MPI_ERR_COUNT */
  CHECK_ERR_CLASS(MPI_Send(&value, -1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_ERR_CLASS(MPI_Recv(&value, -1, MPI_INT, rank, 0, MPI_COMM_WORLD, &st), MPI_ERR_COUNT);
  CHECK_ERR_CLASS(MPI_Bcast(buf, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  /* MPI_ERR_TYPE */
  CHECK_ERR_CLASS(MPI_Send(&value, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_ERR_CLASS(MPI_Recv(&value, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD, &st),
                  MPI_ERR_TYPE);
  CHECK_ERR_CLASS(MPI_Bcast(buf, 4, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  /* MPI_ERR_COMM */
  CHECK_ERR_CLASS(MPI_Send(&value, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_ERR_CLASS(MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM);
  CHECK_ERR_CLASS(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_ERR_CLASS(MPI_Comm_size(MPI_COMM_NULL, &value), MPI_ERR_COMM);
  /* MPI_ERR_ROOT */
  CHECK_ERR_CLASS(MPI_Bcast(buf, 4, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
  CHECK_ERR_CLASS(MPI_Bcast(buf, 4, MPI_INT, -1, MPI_COMM_WORLD), MPI_ERR_ROOT);
  CHECK_ERR_CLASS(MPI_Reduce(buf, out, 4, MPI_INT, MPI_SUM, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
  /* MPI_ERR_OP */
  CHECK_ERR_CLASS(MPI_Reduce(buf, out, 4, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_ERR_CLASS(MPI_Allreduce(buf, out, 4, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_ERR_CLASS(MPI_Reduce_local(buf, out, 4, MPI_INT, MPI_OP_NULL), MPI_ERR_OP);
  /* MPI_ERR_BUFFER: a null buffer with a positive count. */
  CHECK_ERR_CLASS(MPI_Send(NULL, 4, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_ERR_CLASS(MPI_Recv(NULL, 4, MPI_INT, rank, 0, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER);
  CHECK_ERR_CLASS(MPI_Isend(NULL, 4, MPI_INT, rank, 0, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);

  /* A user op on an invalid datatype is still an argument error, and the op is not called. */
  MPI_Op op = MPI_OP_NULL;
  CHECK_MPI(MPI_Op_create(dummy_op, 1, &op));
  CHECK_ERR_CLASS(MPI_Allreduce(buf, out, 4, MPI_DATATYPE_NULL, op, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_INT(user_op_calls_, ==, 0);
  CHECK_MPI(MPI_Op_free(&op));
  CHECK(op == MPI_OP_NULL);

  /* The class names themselves have non-empty strings and are their own classes. */
  const int classes[] = {MPI_ERR_RANK, MPI_ERR_TAG,  MPI_ERR_COUNT,    MPI_ERR_TYPE, MPI_ERR_COMM,
                         MPI_ERR_ROOT, MPI_ERR_OP,   MPI_ERR_BUFFER,   MPI_ERR_TRUNCATE,
                         MPI_ERR_OTHER, MPI_ERR_INTERN, MPI_ERR_IN_STATUS, MPI_ERR_ARG};
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; ++i) {
    int cls = -1;
    CHECK_MPI(MPI_Error_class(classes[i], &cls));
    CHECK_INT(cls, ==, classes[i]);
    CHECK_MSG(jobs_error_text(classes[i])[0] != '\0', "MPI_Error_string(%d) is empty", classes[i]);
  }
  char text[MPI_MAX_ERROR_STRING];
  int len = -1;
  CHECK_MPI(MPI_Error_string(MPI_SUCCESS, text, &len));
  CHECK_INT(len, >=, 0);
  CHECK_INT(len, <, MPI_MAX_ERROR_STRING);

  /* None of the failed sends above may have left a message behind. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
  CHECK_MSG(!flag, "a message from rank %d tag %d arrived although every send failed its checks",
            st.MPI_SOURCE, st.MPI_TAG);
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK_INT(sum, ==, size * (size - 1) / 2);
  jobs_done("job_arg_errors");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
