/* Ports and the name service: MPI_Open_port gives each call a distinct name that
 * MPI_Close_port takes back once (closing it again, or a name never opened, fails with
 * MPI_ERR_PORT); every rank publishes a service under its port and every rank finds every
 * other's, exactly as published; publishing a taken name and unpublishing with another port
 * fail with MPI_ERR_SERVICE, looking up an unknown name with MPI_ERR_NAME; after unpublishing
 * nobody finds the names any more. Under Slurm (whose PMIx server offers no name service)
 * publishing fails with MPI_ERR_SERVICE and a message saying so. */
#include <stdlib.h>
#include <string.h>

#include "jobs_util.h"

static int rank_, size_;

static void check_ports(char *port) {
  char other[MPI_MAX_PORT_NAME];
  CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
  CHECK_MSG(strncmp(port, "mpr-port:tcp:", 13) == 0, "port name '%s'", port);
  CHECK_INT(strlen(port), <, MPI_MAX_PORT_NAME);
  CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, other));
  CHECK_MSG(strcmp(port, other) != 0, "two ports got one name '%s'", port);
  CHECK_MPI(MPI_Close_port(other));
  CHECK_ERR_CLASS(MPI_Close_port(other), MPI_ERR_PORT);
  CHECK_ERR_CLASS(MPI_Close_port("mpr-port:tcp:127.0.0.1:1:00"), MPI_ERR_PORT);
}

static void service_of(int r, char *out) { snprintf(out, 64, "job-names-service-%d", r); }

static void check_names(const char *port) {
  char service[64], found[MPI_MAX_PORT_NAME];
  char *all = jobs_malloc((size_t)size_ * MPI_MAX_PORT_NAME);
  service_of(rank_, service);
  CHECK_MPI(MPI_Publish_name(service, MPI_INFO_NULL, port));
  CHECK_ERR_CLASS(MPI_Publish_name(service, MPI_INFO_NULL, port), MPI_ERR_SERVICE);
  CHECK_MPI(MPI_Allgather(port, MPI_MAX_PORT_NAME, MPI_CHAR, all, MPI_MAX_PORT_NAME, MPI_CHAR,
                          MPI_COMM_WORLD));
  for (int r = 0; r < size_; ++r) {
    service_of(r, service);
    memset(found, 0, sizeof found);
    CHECK_MPI(MPI_Lookup_name(service, MPI_INFO_NULL, found));
    CHECK_MSG(strcmp(found, all + (size_t)r * MPI_MAX_PORT_NAME) == 0,
              "rank %d looked up %s: '%s', published '%s'", rank_, service, found,
              all + (size_t)r * MPI_MAX_PORT_NAME);
  }
  CHECK_ERR_CLASS(MPI_Lookup_name("job-names-nobody", MPI_INFO_NULL, found), MPI_ERR_NAME);
  service_of(rank_, service);
  CHECK_ERR_CLASS(MPI_Unpublish_name(service, MPI_INFO_NULL, "another-port"), MPI_ERR_SERVICE);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* everyone looked up everything */
  CHECK_MPI(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
  CHECK_ERR_CLASS(MPI_Unpublish_name(service, MPI_INFO_NULL, port), MPI_ERR_SERVICE);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* everyone unpublished */
  for (int r = 0; r < size_; ++r) {
    service_of(r, service);
    CHECK_ERR_CLASS(MPI_Lookup_name(service, MPI_INFO_NULL, found), MPI_ERR_NAME);
  }
  free(all);
}

static void check_names_unavailable(const char *port) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  int rc = MPI_Publish_name("job-names-slurm", MPI_INFO_NULL, port);
  CHECK_ERR_CLASS(rc, MPI_ERR_SERVICE);
  MPI_Error_string(rc, text, &len);
  CHECK_MSG(strstr(text, "Slurm") != NULL, "the message does not say why: %s", text);
}

int main(int argc, char **argv) {
  char port[MPI_MAX_PORT_NAME];
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  check_ports(port);
  if (getenv("SLURM_STEP_ID"))
    check_names_unavailable(port);
  else
    check_names(port);
  CHECK_MPI(MPI_Close_port(port));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  jobs_done("job_names");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
