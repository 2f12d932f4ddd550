/* Connecting groups without a shared communicator, inside one job: rank 0 accepts on a port
 * while the other ranks connect as one group (and the reverse: the others accept, rank 0
 * connects); the intercommunicator has the right sizes and ranks, a broadcast from MPI_ROOT and
 * point-to-point in both directions carry the right bytes, merging it gives a communicator of
 * everyone that an allreduce runs on, and MPI_Comm_disconnect ends it. MPI_Comm_join joins
 * ranks 0 and 1 over a TCP socket they made themselves. The errors: a malformed port name, a
 * port nobody listens on any more, accepting on a port this process did not open, and a
 * connection with a wrong token (refused without disturbing the accept that follows). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "jobs_util.h"

static int rank_, size_;

/* Everything a fresh intercommunicator must do, seen from either side. `lone` is true on the
 * side that is rank 0 alone; the other side has size_ - 1 processes. */
static void exercise(MPI_Comm inter, int lone) {
  int lsize, rsize, lrank, is_inter;
  CHECK_MPI(MPI_Comm_test_inter(inter, &is_inter));
  CHECK(is_inter);
  CHECK_MPI(MPI_Comm_size(inter, &lsize));
  CHECK_MPI(MPI_Comm_remote_size(inter, &rsize));
  CHECK_MPI(MPI_Comm_rank(inter, &lrank));
  CHECK_INT(lsize, ==, lone ? 1 : size_ - 1);
  CHECK_INT(rsize, ==, lone ? size_ - 1 : 1);
  CHECK_INT(lrank, ==, lone ? 0 : rank_ - 1);

  /* A broadcast from the lone side's root to the whole other side. */
  char msg[64];
  if (lone) {
    snprintf(msg, sizeof msg, "from the lone side");
    CHECK_MPI(MPI_Bcast(msg, sizeof msg, MPI_CHAR, MPI_ROOT, inter));
  } else {
    memset(msg, 0, sizeof msg);
    CHECK_MPI(MPI_Bcast(msg, sizeof msg, MPI_CHAR, 0, inter));
    CHECK_MSG(strcmp(msg, "from the lone side") == 0, "bcast gave '%s'", msg);
  }
  /* Point-to-point both ways: every process of the group talks to rank 0 across. */
  if (lone) {
    for (int r = 0; r < rsize; ++r) {
      int v = -1;
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, r, 7, inter, MPI_STATUS_IGNORE));
      CHECK_INT(v, ==, 1000 + r);
      v = 2000 + r;
      CHECK_MPI(MPI_Send(&v, 1, MPI_INT, r, 8, inter));
    }
  } else {
    int v = 1000 + lrank;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 7, inter));
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 8, inter, MPI_STATUS_IGNORE));
    CHECK_INT(v, ==, 2000 + lrank);
  }
  /* Merged, the lone side first: everybody in one intracommunicator. */
  MPI_Comm all;
  CHECK_MPI(MPI_Intercomm_merge(inter, lone ? 0 : 1, &all));
  int arank, asize, sum = 0;
  CHECK_MPI(MPI_Comm_rank(all, &arank));
  CHECK_MPI(MPI_Comm_size(all, &asize));
  CHECK_INT(asize, ==, size_);
  CHECK_INT(arank, ==, lone ? 0 : 1 + lrank);
  CHECK_MPI(MPI_Allreduce(&arank, &sum, 1, MPI_INT, MPI_SUM, all));
  CHECK_INT(sum, ==, size_ * (size_ - 1) / 2);
  CHECK_MPI(MPI_Comm_free(&all));
  CHECK_MPI(MPI_Comm_disconnect(&inter));
  CHECK(inter == MPI_COMM_NULL);
}

/* rank 0 alone on one side, the rest on the other; `zero_accepts` picks who listens. */
static void check_accept_connect(int zero_accepts) {
  MPI_Comm rest, inter;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank_ == 0 ? MPI_UNDEFINED : 1, rank_, &rest));
  char port[MPI_MAX_PORT_NAME] = "";
  const int opener = zero_accepts ? 0 : 1;
  if (rank_ == opener) CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
  /* The port goes from its opener to the other side's root. */
  if (rank_ == opener)
    CHECK_MPI(MPI_Send(port, sizeof port, MPI_CHAR, 1 - opener, 0, MPI_COMM_WORLD));
  if (rank_ == 1 - opener)
    CHECK_MPI(MPI_Recv(port, sizeof port, MPI_CHAR, opener, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  if (rank_ == 0) {
    if (zero_accepts)
      CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter));
    else
      CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter));
  } else {
    if (zero_accepts)
      CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, rest, &inter));
    else
      CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, rest, &inter));
  }
  if (rank_ == opener) CHECK_MPI(MPI_Close_port(port));
  exercise(inter, rank_ == 0);
  if (rest != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&rest));
}

/* Ranks 0 and 1 make a TCP connection of their own and join over it. */
static void check_join(void) {
  int fd = -1;
  if (rank_ == 0) {
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sa;
    CHECK(lfd >= 0 && bind(lfd, (struct sockaddr*)&sa, sizeof sa) == 0 && listen(lfd, 1) == 0);
    CHECK(getsockname(lfd, (struct sockaddr*)&sa, &len) == 0);
    int port = ntohs(sa.sin_port);
    CHECK_MPI(MPI_Send(&port, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
    fd = accept(lfd, NULL, NULL);
    CHECK(fd >= 0);
    close(lfd);
  } else if (rank_ == 1) {
    int port = 0;
    CHECK_MPI(MPI_Recv(&port, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
    CHECK(connect(fd, (struct sockaddr*)&sa, sizeof sa) == 0);
  }
  if (rank_ <= 1) {
    MPI_Comm inter;
    int rsize, v = rank_ == 0 ? 4242 : 0;
    CHECK_MPI(MPI_Comm_join(fd, &inter));
    close(fd);
    CHECK_MPI(MPI_Comm_remote_size(inter, &rsize));
    CHECK_INT(rsize, ==, 1);
    CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, rank_ == 0 ? MPI_ROOT : 0, inter));
    if (rank_ == 1) CHECK_INT(v, ==, 4242);
    CHECK_MPI(MPI_Comm_free(&inter));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void check_errors(void) {
  MPI_Comm inter = MPI_COMM_NULL;
  char port[MPI_MAX_PORT_NAME];
  CHECK_ERR_CLASS(MPI_Comm_connect("not-a-port", MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter),
                  MPI_ERR_PORT);
  CHECK(inter == MPI_COMM_NULL);
  CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
  CHECK_MPI(MPI_Close_port(port));
  CHECK_ERR_CLASS(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter), MPI_ERR_PORT);
  CHECK_ERR_CLASS(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter), MPI_ERR_PORT);
  CHECK_ERR_CLASS(MPI_Comm_join(-1, &inter), MPI_ERR_ARG);
}

/* A connection with the wrong token is refused; the real one then gets through. */
static void check_wrong_token(void) {
  if (size_ < 2 || rank_ > 1) return;
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm inter;
  if (rank_ == 0) {
    CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
    CHECK_MPI(MPI_Send(port, sizeof port, MPI_CHAR, 1, 2, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter));
    CHECK_MPI(MPI_Close_port(port));
  } else {
    CHECK_MPI(MPI_Recv(port, sizeof port, MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    char forged[MPI_MAX_PORT_NAME];
    snprintf(forged, sizeof forged, "%s", port);
    size_t n = strlen(forged);
    forged[n - 1] = forged[n - 1] == '0' ? '1' : '0'; /* the token's last digit */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "timeout", "2");
    CHECK_ERR_CLASS(MPI_Comm_connect(forged, info, 0, MPI_COMM_SELF, &inter), MPI_ERR_PORT);
    MPI_Info_free(&info);
    CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter));
  }
  int v = 0;
  CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, rank_ == 0 ? MPI_ROOT : 0, inter));
  CHECK_MPI(MPI_Comm_disconnect(&inter));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  check_errors();
  if (size_ >= 2) {
    check_accept_connect(1);
    check_accept_connect(0);
    check_join();
    check_wrong_token();
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  jobs_done("job_connect");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
