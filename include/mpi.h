/* MPR: the MPI C interface (MPI-4.0 subset, see runtime/README.md for what is implemented).
 *
 * Handles are opaque pointer-sized values, the shape of the MPI 5.0 standard ABI: user-created
 * objects are real pointers, predefined objects are small integer constants (below 0x1000)
 * that the library maps to its built-in objects, and every *_NULL handle is the null pointer.
 * Usable from C (C99 or later) and C++. */
#ifndef MPR_MPI_H
#define MPR_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MPR_API __attribute__((visibility("default")))
#else
#define MPR_API
#endif

#define MPI_VERSION 4
#define MPI_SUBVERSION 0

/* ---- handle and scalar types ------------------------------------------------------------ */
typedef struct mpr_comm_s *MPI_Comm;
typedef struct mpr_datatype_s *MPI_Datatype;
typedef struct mpr_op_s *MPI_Op;
typedef struct mpr_request_s *MPI_Request;
typedef struct mpr_errhandler_s *MPI_Errhandler;
typedef struct mpr_group_s *MPI_Group;
typedef struct mpr_info_s *MPI_Info;
typedef struct mpr_message_s *MPI_Message;

typedef intptr_t MPI_Aint;
typedef int64_t MPI_Offset;
typedef int64_t MPI_Count;
typedef int MPI_Fint;

typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  /* Private: received byte count (low, high 32 bits) and the cancelled flag. */
  int mpi_abi_slot[5];
} MPI_Status;

typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *error_code, ...);

/* ---- null and predefined handles -------------------------------------------------------- */
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)0x101)
#define MPI_COMM_SELF ((MPI_Comm)0x102)

#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)0x301)

#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x141)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)0x142)
#define MPI_ERRORS_ABORT ((MPI_Errhandler)0x143)

#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_MAX ((MPI_Op)0x21)
#define MPI_MIN ((MPI_Op)0x22)
#define MPI_SUM ((MPI_Op)0x23)
#define MPI_PROD ((MPI_Op)0x24)
#define MPI_LAND ((MPI_Op)0x25)
#define MPI_BAND ((MPI_Op)0x26)
#define MPI_LOR ((MPI_Op)0x27)
#define MPI_BOR ((MPI_Op)0x28)
#define MPI_LXOR ((MPI_Op)0x29)
#define MPI_BXOR ((MPI_Op)0x2a)
#define MPI_MAXLOC ((MPI_Op)0x2b)
#define MPI_MINLOC ((MPI_Op)0x2c)
#define MPI_REPLACE ((MPI_Op)0x2d)
#define MPI_NO_OP ((MPI_Op)0x2e)

#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_CHAR ((MPI_Datatype)0x201)
#define MPI_SIGNED_CHAR ((MPI_Datatype)0x202)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)0x203)
#define MPI_BYTE ((MPI_Datatype)0x204)
#define MPI_WCHAR ((MPI_Datatype)0x205)
#define MPI_SHORT ((MPI_Datatype)0x206)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)0x207)
#define MPI_INT ((MPI_Datatype)0x208)
#define MPI_UNSIGNED ((MPI_Datatype)0x209)
#define MPI_LONG ((MPI_Datatype)0x20a)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)0x20b)
#define MPI_LONG_LONG_INT ((MPI_Datatype)0x20c)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)0x20d)
#define MPI_FLOAT ((MPI_Datatype)0x20e)
#define MPI_DOUBLE ((MPI_Datatype)0x20f)
#define MPI_LONG_DOUBLE ((MPI_Datatype)0x210)
#define MPI_C_BOOL ((MPI_Datatype)0x211)
#define MPI_INT8_T ((MPI_Datatype)0x212)
#define MPI_INT16_T ((MPI_Datatype)0x213)
#define MPI_INT32_T ((MPI_Datatype)0x214)
#define MPI_INT64_T ((MPI_Datatype)0x215)
#define MPI_UINT8_T ((MPI_Datatype)0x216)
#define MPI_UINT16_T ((MPI_Datatype)0x217)
#define MPI_UINT32_T ((MPI_Datatype)0x218)
#define MPI_UINT64_T ((MPI_Datatype)0x219)
#define MPI_C_FLOAT_COMPLEX ((MPI_Datatype)0x21a)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)0x21b)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x21c)
#define MPI_AINT ((MPI_Datatype)0x21d)
#define MPI_OFFSET ((MPI_Datatype)0x21e)
#define MPI_COUNT ((MPI_Datatype)0x21f)
#define MPI_PACKED ((MPI_Datatype)0x220)
#define MPI_CXX_BOOL ((MPI_Datatype)0x221)
#define MPI_CXX_FLOAT_COMPLEX ((MPI_Datatype)0x222)
#define MPI_CXX_DOUBLE_COMPLEX ((MPI_Datatype)0x223)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x224)
#define MPI_FLOAT_INT ((MPI_Datatype)0x225)
#define MPI_DOUBLE_INT ((MPI_Datatype)0x226)
#define MPI_LONG_INT ((MPI_Datatype)0x227)
#define MPI_2INT ((MPI_Datatype)0x228)
#define MPI_SHORT_INT ((MPI_Datatype)0x229)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)0x22a)

/* ---- constants ---------------------------------------------------------------------------- */
#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID (-1)

#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_BOTTOM ((void *)0)
#define MPI_IN_PLACE ((void *)-1)

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_OBJECT_NAME 128
#define MPI_BSEND_OVERHEAD 64

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* results of MPI_Comm_compare */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* predefined attribute keys, read with MPI_Comm_get_attr */
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_UNIVERSE_SIZE 5
#define MPI_LASTUSEDCODE 6
#define MPI_APPNUM 7

/* ---- error classes (MPI-4.0) ------------------------------------------------------------
 * Functions may return a more specific error code than these classes; MPI_Error_class maps a
 * code to its class and MPI_Error_string describes the failure that produced the code. */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_ROOT 7
#define MPI_ERR_GROUP 8
#define MPI_ERR_OP 9
#define MPI_ERR_TOPOLOGY 10
#define MPI_ERR_DIMS 11
#define MPI_ERR_ARG 12
#define MPI_ERR_UNKNOWN 13
#define MPI_ERR_TRUNCATE 14
#define MPI_ERR_OTHER 15
#define MPI_ERR_INTERN 16
#define MPI_ERR_IN_STATUS 17
#define MPI_ERR_PENDING 18
#define MPI_ERR_REQUEST 19
#define MPI_ERR_ACCESS 20
#define MPI_ERR_AMODE 21
#define MPI_ERR_BAD_FILE 22
#define MPI_ERR_CONVERSION 23
#define MPI_ERR_DUP_DATAREP 24
#define MPI_ERR_FILE_EXISTS 25
#define MPI_ERR_FILE_IN_USE 26
#define MPI_ERR_FILE 27
#define MPI_ERR_INFO 28
#define MPI_ERR_INFO_KEY 29
#define MPI_ERR_INFO_VALUE 30
#define MPI_ERR_INFO_NOKEY 31
#define MPI_ERR_IO 32
#define MPI_ERR_NAME 33
#define MPI_ERR_NO_MEM 34
#define MPI_ERR_NOT_SAME 35
#define MPI_ERR_NO_SPACE 36
#define MPI_ERR_NO_SUCH_FILE 37
#define MPI_ERR_PORT 38
#define MPI_ERR_QUOTA 39
#define MPI_ERR_READ_ONLY 40
#define MPI_ERR_SERVICE 41
#define MPI_ERR_SPAWN 42
#define MPI_ERR_UNSUPPORTED_DATAREP 43
#define MPI_ERR_UNSUPPORTED_OPERATION 44
#define MPI_ERR_WIN 45
#define MPI_ERR_BASE 46
#define MPI_ERR_LOCKTYPE 47
#define MPI_ERR_KEYVAL 48
#define MPI_ERR_RMA_CONFLICT 49
#define MPI_ERR_RMA_SYNC 50
#define MPI_ERR_SIZE 51
#define MPI_ERR_DISP 52
#define MPI_ERR_ASSERT 53
#define MPI_ERR_RMA_RANGE 54
#define MPI_ERR_RMA_ATTACH 55
#define MPI_ERR_RMA_SHARED 56
#define MPI_ERR_RMA_FLAVOR 57
#define MPI_ERR_PROC_ABORTED 58
#define MPI_ERR_VALUE_TOO_LARGE 59
#define MPI_ERR_SESSION 60
#define MPI_ERR_ERRHANDLER 61
#define MPI_ERR_LASTCODE 0x3fffffff

/* ---- environment ---------------------------------------------------------------------------- */
MPR_API int MPI_Init(int *argc, char ***argv);
MPR_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
MPR_API int MPI_Query_thread(int *provided);
MPR_API int MPI_Is_thread_main(int *flag);
MPR_API int MPI_Initialized(int *flag);
MPR_API int MPI_Finalize(void);
MPR_API int MPI_Finalized(int *flag);
MPR_API int MPI_Abort(MPI_Comm comm, int errorcode);
MPR_API int MPI_Get_processor_name(char *name, int *resultlen);
MPR_API int MPI_Get_version(int *version, int *subversion);
MPR_API int MPI_Get_library_version(char *version, int *resultlen);
MPR_API double MPI_Wtime(void);
MPR_API double MPI_Wtick(void);

/* ---- point-to-point ------------------------------------------------------------------------- */
MPR_API int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm);
MPR_API int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm);
MPR_API int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm);
MPR_API int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm);
MPR_API int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Status *status);
MPR_API int MPI_Buffer_attach(void *buffer, int size);
MPR_API int MPI_Buffer_detach(void *buffer_addr, int *size);
MPR_API int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                      MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                         int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status);
MPR_API int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
                                 int sendtag, int source, int recvtag, MPI_Comm comm,
                                 MPI_Status *status);
MPR_API int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
MPR_API int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
MPR_API int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                       MPI_Status *status);
MPR_API int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                        MPI_Status *status);
MPR_API int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                      MPI_Status *status);
MPR_API int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                       MPI_Request *request);

/* ---- requests and status -------------------------------------------------------------------- */
MPR_API int MPI_Wait(MPI_Request *request, MPI_Status *status);
MPR_API int MPI_Waitall(int count, MPI_Request array_of_requests[],
                        MPI_Status array_of_statuses[]);
MPR_API int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index,
                        MPI_Status *status);
MPR_API int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                         int array_of_indices[], MPI_Status array_of_statuses[]);
MPR_API int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
MPR_API int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                        MPI_Status array_of_statuses[]);
MPR_API int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                        MPI_Status *status);
MPR_API int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                         int array_of_indices[], MPI_Status array_of_statuses[]);
MPR_API int MPI_Request_free(MPI_Request *request);
MPR_API int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
MPR_API int MPI_Cancel(MPI_Request *request);
MPR_API int MPI_Test_cancelled(const MPI_Status *status, int *flag);
MPR_API int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
MPR_API int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
MPR_API int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
                               MPI_Count *count);
MPR_API int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count);
MPR_API int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype,
                                      MPI_Count count);
MPR_API int MPI_Status_set_cancelled(MPI_Status *status, int flag);

/* ---- collectives and reduction operations --------------------------------------------------- */
MPR_API int MPI_Barrier(MPI_Comm comm);
MPR_API int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
MPR_API int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm);
MPR_API int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm);
MPR_API int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
                             MPI_Datatype datatype, MPI_Op op);
MPR_API int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
MPR_API int MPI_Op_free(MPI_Op *op);
MPR_API int MPI_Op_commutative(MPI_Op op, int *commute);

/* ---- datatypes (predefined only for now) ----------------------------------------------------- */
MPR_API int MPI_Type_size(MPI_Datatype datatype, int *size);
MPR_API int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
MPR_API int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
MPR_API int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);

/* ---- communicators, attributes, error handling ---------------------------------------------- */
MPR_API int MPI_Comm_rank(MPI_Comm comm, int *rank);
MPR_API int MPI_Comm_size(MPI_Comm comm, int *size);
MPR_API int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
MPR_API int MPI_Comm_free(MPI_Comm *comm);
MPR_API int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
MPR_API int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);
MPR_API int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
MPR_API int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag);
MPR_API int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
MPR_API int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
MPR_API int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                                       MPI_Errhandler *errhandler);
MPR_API int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
MPR_API int MPI_Errhandler_free(MPI_Errhandler *errhandler);
MPR_API int MPI_Error_string(int errorcode, char *string, int *resultlen);
MPR_API int MPI_Error_class(int errorcode, int *errorclass);

/* ---- profiling interface: every function above also exists as PMPI_<name> ------------------ */
MPR_API int PMPI_Init(int *argc, char ***argv);
MPR_API int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided);
MPR_API int PMPI_Query_thread(int *provided);
MPR_API int PMPI_Is_thread_main(int *flag);
MPR_API int PMPI_Initialized(int *flag);
MPR_API int PMPI_Finalize(void);
MPR_API int PMPI_Finalized(int *flag);
MPR_API int PMPI_Abort(MPI_Comm comm, int errorcode);
MPR_API int PMPI_Get_processor_name(char *name, int *resultlen);
MPR_API int PMPI_Get_version(int *version, int *subversion);
MPR_API int PMPI_Get_library_version(char *version, int *resultlen);
MPR_API double PMPI_Wtime(void);
MPR_API double PMPI_Wtick(void);
MPR_API int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm);
MPR_API int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm);
MPR_API int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm);
MPR_API int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm);
MPR_API int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                      MPI_Comm comm, MPI_Status *status);
MPR_API int PMPI_Buffer_attach(void *buffer, int size);
MPR_API int PMPI_Buffer_detach(void *buffer_addr, int *size);
MPR_API int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                       MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                          int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status);
MPR_API int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
                                  int sendtag, int source, int recvtag, MPI_Comm comm,
                                  MPI_Status *status);
MPR_API int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
MPR_API int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
MPR_API int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                        MPI_Status *status);
MPR_API int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                         MPI_Status *status);
MPR_API int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                       MPI_Status *status);
MPR_API int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                        MPI_Request *request);
MPR_API int PMPI_Wait(MPI_Request *request, MPI_Status *status);
MPR_API int PMPI_Waitall(int count, MPI_Request array_of_requests[],
                         MPI_Status array_of_statuses[]);
MPR_API int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index,
                         MPI_Status *status);
MPR_API int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                          int array_of_indices[], MPI_Status array_of_statuses[]);
MPR_API int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
MPR_API int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                         MPI_Status array_of_statuses[]);
MPR_API int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                         MPI_Status *status);
MPR_API int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                          int array_of_indices[], MPI_Status array_of_statuses[]);
MPR_API int PMPI_Request_free(MPI_Request *request);
MPR_API int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
MPR_API int PMPI_Cancel(MPI_Request *request);
MPR_API int PMPI_Test_cancelled(const MPI_Status *status, int *flag);
MPR_API int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
MPR_API int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
MPR_API int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
                                MPI_Count *count);
MPR_API int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count);
MPR_API int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype,
                                       MPI_Count count);
MPR_API int PMPI_Status_set_cancelled(MPI_Status *status, int flag);
MPR_API int PMPI_Barrier(MPI_Comm comm);
MPR_API int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
MPR_API int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, int root, MPI_Comm comm);
MPR_API int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
MPR_API int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
                              MPI_Datatype datatype, MPI_Op op);
MPR_API int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
MPR_API int PMPI_Op_free(MPI_Op *op);
MPR_API int PMPI_Op_commutative(MPI_Op op, int *commute);
MPR_API int PMPI_Type_size(MPI_Datatype datatype, int *size);
MPR_API int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
MPR_API int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
MPR_API int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
MPR_API int PMPI_Comm_rank(MPI_Comm comm, int *rank);
MPR_API int PMPI_Comm_size(MPI_Comm comm, int *size);
MPR_API int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
MPR_API int PMPI_Comm_free(MPI_Comm *comm);
MPR_API int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
MPR_API int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);
MPR_API int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
MPR_API int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag);
MPR_API int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
MPR_API int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
MPR_API int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                                        MPI_Errhandler *errhandler);
MPR_API int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
MPR_API int PMPI_Errhandler_free(MPI_Errhandler *errhandler);
MPR_API int PMPI_Error_string(int errorcode, char *string, int *resultlen);
MPR_API int PMPI_Error_class(int errorcode, int *errorclass);

#ifdef __cplusplus
}
#endif

#endif /* MPR_MPI_H */
