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
typedef struct mpr_session_s *MPI_Session;
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

/* The Fortran 2008 binding's status, as C sees it (the same fields as MPI_Status). */
typedef struct MPI_F08_status {
  MPI_Fint MPI_SOURCE;
  MPI_Fint MPI_TAG;
  MPI_Fint MPI_ERROR;
  MPI_Fint mpi_abi_slot[5];
} MPI_F08_status;

typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void MPI_User_function_c(void *invec, void *inoutvec, MPI_Count *len,
                                 MPI_Datatype *datatype);
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
#define MPI_SESSION_NULL ((MPI_Session)0)
#define MPI_MAX_PSET_NAME_LEN 256
#define MPI_MAX_STRINGTAG_LEN 256
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
/* Fortran types, usable from C; sizes as gfortran's default kinds (INTEGER, REAL and LOGICAL
 * 4 bytes, DOUBLE PRECISION 8, CHARACTER 1). The 2-byte real and complex kinds and a 16-byte
 * integer are not available: those handles are MPI_DATATYPE_NULL, as in MPICH. */
#define MPI_INTEGER ((MPI_Datatype)0x22b)
#define MPI_REAL ((MPI_Datatype)0x22c)
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)0x22d)
#define MPI_COMPLEX ((MPI_Datatype)0x22e)
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)0x22f)
#define MPI_LOGICAL ((MPI_Datatype)0x230)
#define MPI_CHARACTER ((MPI_Datatype)0x231)
#define MPI_2REAL ((MPI_Datatype)0x232)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)0x233)
#define MPI_2INTEGER ((MPI_Datatype)0x234)
#define MPI_INTEGER1 ((MPI_Datatype)0x235)
#define MPI_INTEGER2 ((MPI_Datatype)0x236)
#define MPI_INTEGER4 ((MPI_Datatype)0x237)
#define MPI_INTEGER8 ((MPI_Datatype)0x238)
#define MPI_INTEGER16 MPI_DATATYPE_NULL
#define MPI_REAL2 MPI_DATATYPE_NULL
#define MPI_REAL4 ((MPI_Datatype)0x239)
#define MPI_REAL8 ((MPI_Datatype)0x23a)
#define MPI_REAL16 ((MPI_Datatype)0x23b)
#define MPI_COMPLEX4 MPI_DATATYPE_NULL
#define MPI_COMPLEX8 ((MPI_Datatype)0x23c)
#define MPI_COMPLEX16 ((MPI_Datatype)0x23d)
#define MPI_COMPLEX32 ((MPI_Datatype)0x23e)
#define MPI_LOGICAL1 ((MPI_Datatype)0x23f)
#define MPI_LOGICAL2 ((MPI_Datatype)0x240)
#define MPI_LOGICAL4 ((MPI_Datatype)0x241)
#define MPI_LOGICAL8 ((MPI_Datatype)0x242)

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
/* MPI 4.1: attach this as the buffer to have the library buffer every message as needed. */
#define MPI_BUFFER_AUTOMATIC ((void *)-1)

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

/* ---- communicators and groups: constants and callback types -------------------------------- */
#define MPI_GROUP_EMPTY ((MPI_Group)0x105)
#define MPI_INFO_ENV ((MPI_Info)0x119)

/* MPI_Comm_split_type */
#define MPI_COMM_TYPE_SHARED 1
#define MPI_COMM_TYPE_HW_UNGUIDED 2
#define MPI_COMM_TYPE_HW_GUIDED 3

/* MPI_Topo_test */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3
/* MPI_Dist_graph_create(_adjacent) weights */
/* Neither is NULL: NULL is a valid weights array of a zero degree (MPI 3.0). */
#define MPI_UNWEIGHTED ((int *)2)
#define MPI_WEIGHTS_EMPTY ((int *)3)

/* attribute callbacks; the predefined ones are small constants, as in the standard ABI */
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out,
                                        int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                          void *extra_state);
typedef MPI_Comm_copy_attr_function MPI_Copy_function;     /* deprecated names */
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
#define MPI_COMM_NULL_COPY_FN ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_DUP_FN ((MPI_Comm_copy_attr_function *)1)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)
#define MPI_NULL_COPY_FN MPI_COMM_NULL_COPY_FN
#define MPI_DUP_FN MPI_COMM_DUP_FN
#define MPI_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN

/* generalized requests */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);

/* info */
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_PORT_NAME 1024
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)
#define MPI_ERRCODES_IGNORE ((int *)0)

/* Fortran handle conversion: MPI_Status_c2f writes this many MPI_Fint */
#define MPI_F_STATUS_SIZE 8
#define MPI_F_STATUS_IGNORE ((MPI_Fint *)0)
#define MPI_F_STATUSES_IGNORE ((MPI_Fint *)0)
/* ---- end of communicators and groups constants ---------------------------------------------- */

/* ---- one-sided communication (windows): types and constants --------------------------------- */
typedef struct mpr_win_s *MPI_Win;
#define MPI_WIN_NULL ((MPI_Win)0)

typedef void MPI_Win_errhandler_function(MPI_Win *win, int *error_code, ...);
typedef void MPI_Session_errhandler_function(MPI_Session *session, int *error_code, ...);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state,
                                       void *attribute_val_in, void *attribute_val_out,
                                       int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val,
                                         void *extra_state);
#define MPI_WIN_NULL_COPY_FN ((MPI_Win_copy_attr_function *)0)
#define MPI_WIN_DUP_FN ((MPI_Win_copy_attr_function *)1)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function *)0)

/* Predefined window attributes (keyvals) */
#define MPI_WIN_BASE 16
#define MPI_WIN_SIZE 17
#define MPI_WIN_DISP_UNIT 18
#define MPI_WIN_CREATE_FLAVOR 19
#define MPI_WIN_MODEL 20

#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2

#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235

/* Assertions (MPI_Win_fence, _post, _start, _lock, _lock_all) */
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384

/* ---- tool information interface (MPI_T): types and constants ----------------------------- */
typedef struct mpr_t_enum_s *MPI_T_enum;
typedef struct mpr_t_cvar_handle_s *MPI_T_cvar_handle;
typedef struct mpr_t_pvar_handle_s *MPI_T_pvar_handle;
typedef struct mpr_t_pvar_session_s *MPI_T_pvar_session;
typedef struct mpr_t_event_instance_s *MPI_T_event_instance;
typedef struct mpr_t_event_registration_s *MPI_T_event_registration;
typedef enum MPI_T_source_order { MPI_T_SOURCE_ORDERED = 0, MPI_T_SOURCE_UNORDERED = 1 } MPI_T_source_order;
typedef enum MPI_T_cb_safety {
  MPI_T_CB_REQUIRE_NONE = 0,
  MPI_T_CB_REQUIRE_MPI_RESTRICTED = 1,
  MPI_T_CB_REQUIRE_THREAD_SAFE = 2,
  MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 3
} MPI_T_cb_safety;
typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance,
                                     MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration,
                                          MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_dropped_cb_function(MPI_Count count,
                                             MPI_T_event_registration event_registration,
                                             int source_index, MPI_T_cb_safety cb_safety,
                                             void *user_data);

#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
/* start, stop and reset of every handle of a session */
#define MPI_T_PVAR_ALL_HANDLES ((MPI_T_pvar_handle)1)

#define MPI_T_VERBOSITY_USER_BASIC 1
#define MPI_T_VERBOSITY_USER_DETAIL 2
#define MPI_T_VERBOSITY_USER_ALL 3
#define MPI_T_VERBOSITY_TUNER_BASIC 4
#define MPI_T_VERBOSITY_TUNER_DETAIL 5
#define MPI_T_VERBOSITY_TUNER_ALL 6
#define MPI_T_VERBOSITY_MPIDEV_BASIC 7
#define MPI_T_VERBOSITY_MPIDEV_DETAIL 8
#define MPI_T_VERBOSITY_MPIDEV_ALL 9

#define MPI_T_BIND_NO_OBJECT 0
#define MPI_T_BIND_MPI_COMM 1
#define MPI_T_BIND_MPI_DATATYPE 2
#define MPI_T_BIND_MPI_ERRHANDLER 3
#define MPI_T_BIND_MPI_FILE 4
#define MPI_T_BIND_MPI_GROUP 5
#define MPI_T_BIND_MPI_OP 6
#define MPI_T_BIND_MPI_REQUEST 7
#define MPI_T_BIND_MPI_WIN 8
#define MPI_T_BIND_MPI_MESSAGE 9
#define MPI_T_BIND_MPI_INFO 10
#define MPI_T_BIND_MPI_SESSION 11

#define MPI_T_SCOPE_CONSTANT 0
#define MPI_T_SCOPE_READONLY 1
#define MPI_T_SCOPE_LOCAL 2
#define MPI_T_SCOPE_GROUP 3
#define MPI_T_SCOPE_GROUP_EQ 4
#define MPI_T_SCOPE_ALL 5
#define MPI_T_SCOPE_ALL_EQ 6

#define MPI_T_PVAR_CLASS_STATE 0
#define MPI_T_PVAR_CLASS_LEVEL 1
#define MPI_T_PVAR_CLASS_SIZE 2
#define MPI_T_PVAR_CLASS_PERCENTAGE 3
#define MPI_T_PVAR_CLASS_HIGHWATERMARK 4
#define MPI_T_PVAR_CLASS_LOWWATERMARK 5
#define MPI_T_PVAR_CLASS_COUNTER 6
#define MPI_T_PVAR_CLASS_AGGREGATE 7
#define MPI_T_PVAR_CLASS_TIMER 8
#define MPI_T_PVAR_CLASS_GENERIC 9

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
/* The tool information interface's classes (MPI_T calls return them directly, never through an
 * error handler). */
#define MPI_T_ERR_MEMORY 62
#define MPI_T_ERR_NOT_INITIALIZED 63
#define MPI_T_ERR_CANNOT_INIT 64
#define MPI_T_ERR_INVALID_INDEX 65
#define MPI_T_ERR_INVALID_ITEM 66
#define MPI_T_ERR_INVALID_HANDLE 67
#define MPI_T_ERR_OUT_OF_HANDLES 68
#define MPI_T_ERR_OUT_OF_SESSIONS 69
#define MPI_T_ERR_INVALID_SESSION 70
#define MPI_T_ERR_CVAR_SET_NOT_NOW 71
#define MPI_T_ERR_CVAR_SET_NEVER 72
#define MPI_T_ERR_PVAR_NO_STARTSTOP 73
#define MPI_T_ERR_PVAR_NO_WRITE 74
#define MPI_T_ERR_PVAR_NO_ATOMIC 75
#define MPI_T_ERR_INVALID_NAME 76
#define MPI_T_ERR_INVALID 77
#define MPI_T_ERR_NOT_SUPPORTED 78
#define MPI_T_ERR_NOT_ACCESSIBLE 79
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
/* MPI 4.1: buffers per communicator and per session (sessions' are declared with sessions) */
MPR_API int MPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size);
MPR_API int MPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size);
MPR_API int MPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size);
MPR_API int MPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size);
MPR_API int MPI_Comm_flush_buffer(MPI_Comm comm);
MPR_API int MPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Buffer_flush(void);
MPR_API int MPI_Buffer_iflush(MPI_Request *request);
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
MPR_API int MPI_Status_get_source(MPI_Status *status, int *source);
MPR_API int MPI_Status_set_source(MPI_Status *status, int source);
MPR_API int MPI_Status_get_tag(MPI_Status *status, int *tag);
MPR_API int MPI_Status_set_tag(MPI_Status *status, int tag);
MPR_API int MPI_Status_get_error(MPI_Status *status, int *error);
MPR_API int MPI_Status_set_error(MPI_Status *status, int error);
MPR_API int MPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status);
MPR_API int MPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status);
MPR_API int MPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status);
MPR_API int MPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status);
MPR_API int MPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                   MPI_Status array_of_statuses[]);
MPR_API int MPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *index,
                                   int *flag, MPI_Status *status);
MPR_API int MPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[],
                                    int *outcount, int array_of_indices[],
                                    MPI_Status array_of_statuses[]);

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
MPR_API int MPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                                     MPI_Datatype *pair_type);
MPR_API int MPI_Op_free(MPI_Op *op);
MPR_API int MPI_Op_commutative(MPI_Op op, int *commute);

/* ---- datatypes ------------------------------------------------------------------------------- */
MPR_API int MPI_Type_size(MPI_Datatype datatype, int *size);
MPR_API int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
MPR_API int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
MPR_API int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);

/* derived datatypes */
#define MPI_COMBINER_NAMED 0
#define MPI_COMBINER_DUP 1
#define MPI_COMBINER_CONTIGUOUS 2
#define MPI_COMBINER_VECTOR 3
#define MPI_COMBINER_HVECTOR 5
#define MPI_COMBINER_INDEXED 6
#define MPI_COMBINER_HINDEXED 8
#define MPI_COMBINER_INDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT 11
#define MPI_COMBINER_SUBARRAY 12
#define MPI_COMBINER_DARRAY 13
#define MPI_COMBINER_F90_REAL 14
#define MPI_COMBINER_F90_COMPLEX 15
#define MPI_COMBINER_F90_INTEGER 16
#define MPI_COMBINER_RESIZED 17
#define MPI_COMBINER_HINDEXED_BLOCK 18
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3
/* datatype attributes */
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out,
                                        int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval,
                                          void *attribute_val, void *extra_state);
#define MPI_TYPE_NULL_COPY_FN ((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_DUP_FN ((MPI_Type_copy_attr_function *)1)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function *)0)
MPR_API int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype);
MPR_API int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                                    MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
/* MPI-1 names removed in MPI 3.0, kept for older codes (the peers export them too). */
typedef MPI_Comm_errhandler_function MPI_Handler_function;
/* MPI-2 names of the error handler types (deprecated in MPI 2.2; both peers define them). */
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
MPR_API int MPI_Type_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
MPR_API int MPI_Type_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
MPR_API int MPI_Address(const void *location, MPI_Aint *address);
MPR_API int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
MPR_API int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
MPR_API int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);
MPR_API int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler);
MPR_API int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
MPR_API int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
MPR_API int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                             const int array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
MPR_API int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                     const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype);
MPR_API int MPI_Type_create_indexed_block(int count, int blocklength,
                                          const int array_of_displacements[], MPI_Datatype oldtype,
                                          MPI_Datatype *newtype);
MPR_API int MPI_Type_create_hindexed_block(int count, int blocklength,
                                           const MPI_Aint array_of_displacements[],
                                           MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                   const MPI_Aint array_of_displacements[],
                                   const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
MPR_API int MPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                                     const int array_of_subsizes[], const int array_of_starts[],
                                     int order, MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                    MPI_Datatype *newtype);
MPR_API int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int MPI_Type_commit(MPI_Datatype *datatype);
MPR_API int MPI_Type_free(MPI_Datatype *datatype);
MPR_API int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
MPR_API int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                                     MPI_Aint *true_extent);
MPR_API int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                       MPI_Count *true_extent);
MPR_API int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
MPR_API int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                                  int *num_datatypes, int *combiner);
MPR_API int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                                  int max_datatypes, int array_of_integers[],
                                  MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]);
MPR_API int MPI_Get_address(const void *location, MPI_Aint *address);
MPR_API int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
                     int outsize, int *position, MPI_Comm comm);
MPR_API int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                       MPI_Datatype datatype, MPI_Comm comm);
MPR_API int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);
MPR_API int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                                   const int array_of_distribs[], const int array_of_dargs[],
                                   const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                   MPI_Datatype *newtype);
MPR_API int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype);
MPR_API int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype);
MPR_API int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype);
MPR_API int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype);
MPR_API int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                                   MPI_Type_delete_attr_function *type_delete_attr_fn,
                                   int *type_keyval, void *extra_state);
MPR_API int MPI_Type_free_keyval(int *type_keyval);
MPR_API int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val);
MPR_API int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag);
MPR_API int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);
MPR_API int MPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                              MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                              MPI_Aint *position);
MPR_API int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                                MPI_Aint *position, void *outbuf, int outcount,
                                MPI_Datatype datatype);
MPR_API int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                                   MPI_Aint *size);
MPR_API MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPR_API MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
/* end of derived datatypes */

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

/* ---- communicators and groups ---------------------------------------------------------------- */
MPR_API int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
MPR_API int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                                MPI_Comm *newcomm);
MPR_API int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
MPR_API int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm);
MPR_API int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);
MPR_API int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);
MPR_API int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                                    MPI_Request *request);
MPR_API int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info);
MPR_API int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used);
MPR_API int MPI_Comm_test_inter(MPI_Comm comm, int *flag);
MPR_API int MPI_Comm_remote_size(MPI_Comm comm, int *size);
MPR_API int MPI_Comm_group(MPI_Comm comm, MPI_Group *group);
MPR_API int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);
MPR_API int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                                 int remote_leader, int tag, MPI_Comm *newintercomm);
MPR_API int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
MPR_API int MPI_Comm_get_parent(MPI_Comm *parent);
MPR_API int MPI_Comm_disconnect(MPI_Comm *comm);
MPR_API int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                           MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]);
MPR_API int MPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                                    const int array_of_maxprocs[], const MPI_Info array_of_info[],
                                    int root, MPI_Comm comm, MPI_Comm *intercomm,
                                    int array_of_errcodes[]);
MPR_API int MPI_Open_port(MPI_Info info, char *port_name);
MPR_API int MPI_Close_port(const char *port_name);
MPR_API int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                            MPI_Comm *newcomm);
MPR_API int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                             MPI_Comm *newcomm);
MPR_API int MPI_Comm_join(int fd, MPI_Comm *intercomm);
MPR_API int MPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name);
MPR_API int MPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name);
MPR_API int MPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name);
MPR_API int MPI_Group_size(MPI_Group group, int *size);
MPR_API int MPI_Group_rank(MPI_Group group, int *rank);
MPR_API int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                                      int ranks2[]);
MPR_API int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
MPR_API int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
MPR_API int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
MPR_API int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
MPR_API int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
MPR_API int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
MPR_API int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
MPR_API int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
MPR_API int MPI_Group_free(MPI_Group *group);

/* ---- attributes ------------------------------------------------------------------------------ */
MPR_API int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                                   MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                                   int *comm_keyval, void *extra_state);
MPR_API int MPI_Comm_free_keyval(int *comm_keyval);
MPR_API int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);
MPR_API int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);
MPR_API int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn,
                              int *keyval, void *extra_state);
MPR_API int MPI_Keyval_free(int *keyval);
MPR_API int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
MPR_API int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
MPR_API int MPI_Attr_delete(MPI_Comm comm, int keyval);

/* ---- topologies ------------------------------------------------------------------------------ */
MPR_API int MPI_Dims_create(int nnodes, int ndims, int dims[]);
MPR_API int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                            int reorder, MPI_Comm *comm_cart);
MPR_API int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
MPR_API int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank);
MPR_API int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
                           int *rank_dest);
MPR_API int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);
MPR_API int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
MPR_API int MPI_Cartdim_get(MPI_Comm comm, int *ndims);
MPR_API int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                         int *newrank);
MPR_API int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                             int reorder, MPI_Comm *comm_graph);
MPR_API int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors);
MPR_API int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);
MPR_API int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges);
MPR_API int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]);
MPR_API int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                          int *newrank);
MPR_API int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                           const int sourceweights[], int outdegree,
                                           const int destinations[], const int destweights[],
                                           MPI_Info info, int reorder, MPI_Comm *comm_dist_graph);
MPR_API int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                                  const int degrees[], const int destinations[],
                                  const int weights[], MPI_Info info, int reorder,
                                  MPI_Comm *comm_dist_graph);
MPR_API int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,
                                           int *weighted);
MPR_API int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                                     int sourceweights[], int maxoutdegree, int destinations[],
                                     int destweights[]);
MPR_API int MPI_Topo_test(MPI_Comm comm, int *status);
MPR_API int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm);
MPR_API int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const int recvcounts[], const int displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm);
MPR_API int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                   const MPI_Datatype recvtypes[], MPI_Comm comm);
MPR_API int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, const int recvcounts[], const int displs[],
                                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                    const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                    const int recvcounts[], const int rdispls[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                    const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                    void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                    const MPI_Datatype recvtypes[], MPI_Comm comm,
                                    MPI_Request *request);

/* ---- persistent, generalized and combined requests ------------------------------------------- */
MPR_API int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Start(MPI_Request *request);
MPR_API int MPI_Startall(int count, MPI_Request array_of_requests[]);
MPR_API int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                          int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                          int source, int recvtag, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
                                  int sendtag, int source, int recvtag, MPI_Comm comm,
                                  MPI_Request *request);
MPR_API int MPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                               MPI_Grequest_free_function *free_fn,
                               MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                               MPI_Request *request);
MPR_API int MPI_Grequest_complete(MPI_Request request);

/* ---- info ------------------------------------------------------------------------------------ */
MPR_API int MPI_Info_create(MPI_Info *info);
MPR_API int MPI_Get_hw_resource_info(MPI_Info *hw_info);
MPR_API int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info);
MPR_API int MPI_Info_set(MPI_Info info, const char *key, const char *value);
MPR_API int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag);
MPR_API int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag);
MPR_API int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value,
                                int *flag);
MPR_API int MPI_Info_get_nkeys(MPI_Info info, int *nkeys);
MPR_API int MPI_Info_get_nthkey(MPI_Info info, int n, char *key);
MPR_API int MPI_Info_delete(MPI_Info info, const char *key);
MPR_API int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo);
MPR_API int MPI_Info_free(MPI_Info *info);

/* ---- environment: memory, errors, profiling control, handle conversion ----------------------- */
MPR_API int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
MPR_API int MPI_Free_mem(void *base);
MPR_API int MPI_Add_error_class(int *errorclass);
MPR_API int MPI_Add_error_code(int errorclass, int *errorcode);
MPR_API int MPI_Add_error_string(int errorcode, const char *string);
MPR_API int MPI_Remove_error_class(int errorclass);
MPR_API int MPI_Remove_error_code(int errorcode);
MPR_API int MPI_Remove_error_string(int errorcode);
MPR_API int MPI_Pcontrol(const int level, ...);
MPR_API MPI_Fint MPI_Comm_c2f(MPI_Comm comm);
MPR_API MPI_Comm MPI_Comm_f2c(MPI_Fint comm);
MPR_API MPI_Fint MPI_Group_c2f(MPI_Group group);
MPR_API MPI_Group MPI_Group_f2c(MPI_Fint group);
MPR_API MPI_Fint MPI_Type_c2f(MPI_Datatype datatype);
MPR_API MPI_Datatype MPI_Type_f2c(MPI_Fint datatype);
MPR_API MPI_Fint MPI_Request_c2f(MPI_Request request);
MPR_API MPI_Request MPI_Request_f2c(MPI_Fint request);
MPR_API MPI_Fint MPI_Op_c2f(MPI_Op op);
MPR_API MPI_Op MPI_Op_f2c(MPI_Fint op);
MPR_API MPI_Fint MPI_Info_c2f(MPI_Info info);
MPR_API MPI_Info MPI_Info_f2c(MPI_Fint info);
MPR_API MPI_Fint MPI_Errhandler_c2f(MPI_Errhandler errhandler);
MPR_API MPI_Errhandler MPI_Errhandler_f2c(MPI_Fint errhandler);
MPR_API MPI_Fint MPI_Message_c2f(MPI_Message message);
MPR_API MPI_Message MPI_Message_f2c(MPI_Fint message);
MPR_API int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
MPR_API int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);

/* ---- one-sided communication ---------------------------------------------------------------- */
MPR_API int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                           MPI_Win *win);
MPR_API int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win);
MPR_API int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                    void *baseptr, MPI_Win *win);
MPR_API int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                                 void *baseptr);
MPR_API int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);
MPR_API int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size);
MPR_API int MPI_Win_detach(MPI_Win win, const void *base);
MPR_API int MPI_Win_free(MPI_Win *win);
MPR_API int MPI_Win_get_group(MPI_Win win, MPI_Group *group);
MPR_API int MPI_Win_set_name(MPI_Win win, const char *win_name);
MPR_API int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen);
MPR_API int MPI_Win_set_info(MPI_Win win, MPI_Info info);
MPR_API int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used);
MPR_API int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                                  MPI_Win_delete_attr_function *win_delete_attr_fn,
                                  int *win_keyval, void *extra_state);
MPR_API int MPI_Win_free_keyval(int *win_keyval);
MPR_API int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val);
MPR_API int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
MPR_API int MPI_Win_delete_attr(MPI_Win win, int win_keyval);
MPR_API int MPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                                      MPI_Errhandler *errhandler);
MPR_API int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
MPR_API int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler);
MPR_API int MPI_Win_call_errhandler(MPI_Win win, int errorcode);
MPR_API int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Win win);
MPR_API int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Win win);
MPR_API int MPI_Accumulate(const void *origin_addr, int origin_count,
                           MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                           int target_count, MPI_Datatype target_datatype, MPI_Op op,
                           MPI_Win win);
MPR_API int MPI_Get_accumulate(const void *origin_addr, int origin_count,
                               MPI_Datatype origin_datatype, void *result_addr,
                               int result_count, MPI_Datatype result_datatype, int target_rank,
                               MPI_Aint target_disp, int target_count,
                               MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
MPR_API int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                             int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win);
MPR_API int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                                 void *result_addr, MPI_Datatype datatype, int target_rank,
                                 MPI_Aint target_disp, MPI_Win win);
MPR_API int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
MPR_API int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
MPR_API int MPI_Raccumulate(const void *origin_addr, int origin_count,
                            MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                            int target_count, MPI_Datatype target_datatype, MPI_Op op,
                            MPI_Win win, MPI_Request *request);
MPR_API int MPI_Rget_accumulate(const void *origin_addr, int origin_count,
                                MPI_Datatype origin_datatype, void *result_addr,
                                int result_count, MPI_Datatype result_datatype, int target_rank,
                                MPI_Aint target_disp, int target_count,
                                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                MPI_Request *request);
MPR_API int MPI_Win_fence(int assert, MPI_Win win);
MPR_API int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win);
MPR_API int MPI_Win_unlock(int rank, MPI_Win win);
MPR_API int MPI_Win_lock_all(int assert, MPI_Win win);
MPR_API int MPI_Win_unlock_all(MPI_Win win);
MPR_API int MPI_Win_flush(int rank, MPI_Win win);
MPR_API int MPI_Win_flush_all(MPI_Win win);
MPR_API int MPI_Win_flush_local(int rank, MPI_Win win);
MPR_API int MPI_Win_flush_local_all(MPI_Win win);
MPR_API int MPI_Win_sync(MPI_Win win);
MPR_API int MPI_Win_post(MPI_Group group, int assert, MPI_Win win);
MPR_API int MPI_Win_start(MPI_Group group, int assert, MPI_Win win);
MPR_API int MPI_Win_complete(MPI_Win win);
MPR_API int MPI_Win_wait(MPI_Win win);
MPR_API int MPI_Win_test(MPI_Win win, int *flag);
MPR_API MPI_Fint MPI_Win_c2f(MPI_Win win);
MPR_API MPI_Win MPI_Win_f2c(MPI_Fint win);

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
/* MPI 4.1: buffers per communicator and per session (sessions' are declared with sessions) */
MPR_API int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size);
MPR_API int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size);
MPR_API int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size);
MPR_API int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size);
MPR_API int PMPI_Comm_flush_buffer(MPI_Comm comm);
MPR_API int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Buffer_flush(void);
MPR_API int PMPI_Buffer_iflush(MPI_Request *request);
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
MPR_API int PMPI_Status_get_source(MPI_Status *status, int *source);
MPR_API int PMPI_Status_set_source(MPI_Status *status, int source);
MPR_API int PMPI_Status_get_tag(MPI_Status *status, int *tag);
MPR_API int PMPI_Status_set_tag(MPI_Status *status, int tag);
MPR_API int PMPI_Status_get_error(MPI_Status *status, int *error);
MPR_API int PMPI_Status_set_error(MPI_Status *status, int error);
MPR_API int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status);
MPR_API int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status);
MPR_API int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status);
MPR_API int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status);
MPR_API int PMPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                   MPI_Status array_of_statuses[]);
MPR_API int PMPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *index,
                                   int *flag, MPI_Status *status);
MPR_API int PMPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[],
                                    int *outcount, int array_of_indices[],
                                    MPI_Status array_of_statuses[]);
MPR_API int PMPI_Barrier(MPI_Comm comm);
MPR_API int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
MPR_API int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, int root, MPI_Comm comm);
MPR_API int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
MPR_API int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
                              MPI_Datatype datatype, MPI_Op op);
MPR_API int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
MPR_API int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                                      MPI_Datatype *pair_type);
MPR_API int PMPI_Op_free(MPI_Op *op);
MPR_API int PMPI_Op_commutative(MPI_Op op, int *commute);
MPR_API int PMPI_Type_size(MPI_Datatype datatype, int *size);
MPR_API int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
MPR_API int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
MPR_API int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
/* derived datatypes */
MPR_API int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                                     MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                              MPI_Datatype *newtype);
/* MPI-1 names removed in MPI 3.0, kept for older codes (the peers export them too). */
MPR_API int PMPI_Type_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
MPR_API int PMPI_Type_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
MPR_API int PMPI_Address(const void *location, MPI_Aint *address);
MPR_API int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
MPR_API int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
MPR_API int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);
MPR_API int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler);
MPR_API int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
MPR_API int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
MPR_API int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                              const int array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                      const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                      MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_indexed_block(int count, int blocklength,
                                           const int array_of_displacements[], MPI_Datatype oldtype,
                                           MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                            const MPI_Aint array_of_displacements[],
                                            MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                    const MPI_Aint array_of_displacements[],
                                    const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                                      const int array_of_subsizes[], const int array_of_starts[],
                                      int order, MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                     MPI_Datatype *newtype);
MPR_API int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int PMPI_Type_commit(MPI_Datatype *datatype);
MPR_API int PMPI_Type_free(MPI_Datatype *datatype);
MPR_API int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
MPR_API int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                                      MPI_Aint *true_extent);
MPR_API int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                        MPI_Count *true_extent);
MPR_API int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
MPR_API int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                                   int *num_datatypes, int *combiner);
MPR_API int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                                   int max_datatypes, int array_of_integers[],
                                   MPI_Aint array_of_addresses[],
                                   MPI_Datatype array_of_datatypes[]);
MPR_API int PMPI_Get_address(const void *location, MPI_Aint *address);
MPR_API int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
                      int outsize, int *position, MPI_Comm comm);
MPR_API int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                        MPI_Datatype datatype, MPI_Comm comm);
MPR_API int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);
MPR_API int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                                    const int array_of_distribs[], const int array_of_dargs[],
                                    const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                    MPI_Datatype *newtype);
MPR_API int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype);
MPR_API int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                                    MPI_Type_delete_attr_function *type_delete_attr_fn,
                                    int *type_keyval, void *extra_state);
MPR_API int PMPI_Type_free_keyval(int *type_keyval);
MPR_API int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val);
MPR_API int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag);
MPR_API int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);
MPR_API int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                               MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                               MPI_Aint *position);
MPR_API int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                                 MPI_Aint *position, void *outbuf, int outcount,
                                 MPI_Datatype datatype);
MPR_API int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                                    MPI_Aint *size);
MPR_API MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPR_API MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
/* end of derived datatypes */
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

/* communicators and groups */
MPR_API int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
MPR_API int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                                 MPI_Comm *newcomm);
MPR_API int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
MPR_API int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm);
MPR_API int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);
MPR_API int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);
MPR_API int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                                     MPI_Request *request);
MPR_API int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info);
MPR_API int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used);
MPR_API int PMPI_Comm_test_inter(MPI_Comm comm, int *flag);
MPR_API int PMPI_Comm_remote_size(MPI_Comm comm, int *size);
MPR_API int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group);
MPR_API int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);
MPR_API int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                                  int remote_leader, int tag, MPI_Comm *newintercomm);
MPR_API int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
MPR_API int PMPI_Comm_get_parent(MPI_Comm *parent);
MPR_API int PMPI_Comm_disconnect(MPI_Comm *comm);
MPR_API int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info,
                            int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]);
MPR_API int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                                     const int array_of_maxprocs[], const MPI_Info array_of_info[],
                                     int root, MPI_Comm comm, MPI_Comm *intercomm,
                                     int array_of_errcodes[]);
MPR_API int PMPI_Open_port(MPI_Info info, char *port_name);
MPR_API int PMPI_Close_port(const char *port_name);
MPR_API int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                             MPI_Comm *newcomm);
MPR_API int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                              MPI_Comm *newcomm);
MPR_API int PMPI_Comm_join(int fd, MPI_Comm *intercomm);
MPR_API int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name);
MPR_API int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name);
MPR_API int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name);
MPR_API int PMPI_Group_size(MPI_Group group, int *size);
MPR_API int PMPI_Group_rank(MPI_Group group, int *rank);
MPR_API int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                                       MPI_Group group2, int ranks2[]);
MPR_API int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
MPR_API int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
MPR_API int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
MPR_API int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
MPR_API int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
MPR_API int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
MPR_API int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
MPR_API int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
MPR_API int PMPI_Group_free(MPI_Group *group);
/* attributes */
MPR_API int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                                    MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                                    int *comm_keyval, void *extra_state);
MPR_API int PMPI_Comm_free_keyval(int *comm_keyval);
MPR_API int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);
MPR_API int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);
MPR_API int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn,
                               int *keyval, void *extra_state);
MPR_API int PMPI_Keyval_free(int *keyval);
MPR_API int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
MPR_API int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
MPR_API int PMPI_Attr_delete(MPI_Comm comm, int keyval);
/* topologies */
MPR_API int PMPI_Dims_create(int nnodes, int ndims, int dims[]);
MPR_API int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                             int reorder, MPI_Comm *comm_cart);
MPR_API int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
MPR_API int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank);
MPR_API int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
                            int *rank_dest);
MPR_API int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);
MPR_API int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
MPR_API int PMPI_Cartdim_get(MPI_Comm comm, int *ndims);
MPR_API int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                          int *newrank);
MPR_API int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                              int reorder, MPI_Comm *comm_graph);
MPR_API int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors);
MPR_API int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);
MPR_API int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges);
MPR_API int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]);
MPR_API int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                           int *newrank);
MPR_API int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                            const int sourceweights[], int outdegree,
                                            const int destinations[], const int destweights[],
                                            MPI_Info info, int reorder, MPI_Comm *comm_dist_graph);
MPR_API int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                                   const int degrees[], const int destinations[],
                                   const int weights[], MPI_Info info, int reorder,
                                   MPI_Comm *comm_dist_graph);
MPR_API int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,
                                            int *weighted);
MPR_API int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                                      int sourceweights[], int maxoutdegree, int destinations[],
                                      int destweights[]);
MPR_API int PMPI_Topo_test(MPI_Comm comm, int *status);
MPR_API int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                    MPI_Comm comm);
MPR_API int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, const int recvcounts[], const int displs[],
                                     MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm);
MPR_API int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                    const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                    const int recvcounts[], const int rdispls[],
                                    MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                    const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                    void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                    const MPI_Datatype recvtypes[], MPI_Comm comm);
MPR_API int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                     MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void *recvbuf, const int recvcounts[], const int displs[],
                                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                     const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                     const int recvcounts[], const int rdispls[],
                                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                     void *recvbuf, const int recvcounts[],
                                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                     MPI_Comm comm, MPI_Request *request);
/* persistent, generalized and combined requests */
MPR_API int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                            MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                            MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                            MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                           MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Start(MPI_Request *request);
MPR_API int PMPI_Startall(int count, MPI_Request array_of_requests[]);
MPR_API int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                           int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
                                   int sendtag, int source, int recvtag, MPI_Comm comm,
                                   MPI_Request *request);
MPR_API int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                                MPI_Grequest_free_function *free_fn,
                                MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                                MPI_Request *request);
MPR_API int PMPI_Grequest_complete(MPI_Request request);
/* info */
MPR_API int PMPI_Info_create(MPI_Info *info);
MPR_API int PMPI_Get_hw_resource_info(MPI_Info *hw_info);
MPR_API int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info);
MPR_API int PMPI_Info_set(MPI_Info info, const char *key, const char *value);
MPR_API int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag);
MPR_API int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag);
MPR_API int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value,
                                 int *flag);
MPR_API int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys);
MPR_API int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key);
MPR_API int PMPI_Info_delete(MPI_Info info, const char *key);
MPR_API int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo);
MPR_API int PMPI_Info_free(MPI_Info *info);
/* environment: memory, errors, profiling control, handle conversion */
MPR_API int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
MPR_API int PMPI_Free_mem(void *base);
MPR_API int PMPI_Add_error_class(int *errorclass);
MPR_API int PMPI_Add_error_code(int errorclass, int *errorcode);
MPR_API int PMPI_Add_error_string(int errorcode, const char *string);
MPR_API int PMPI_Remove_error_class(int errorclass);
MPR_API int PMPI_Remove_error_code(int errorcode);
MPR_API int PMPI_Remove_error_string(int errorcode);
MPR_API int PMPI_Pcontrol(const int level, ...);
MPR_API MPI_Fint PMPI_Comm_c2f(MPI_Comm comm);
MPR_API MPI_Comm PMPI_Comm_f2c(MPI_Fint comm);
MPR_API MPI_Fint PMPI_Group_c2f(MPI_Group group);
MPR_API MPI_Group PMPI_Group_f2c(MPI_Fint group);
MPR_API MPI_Fint PMPI_Type_c2f(MPI_Datatype datatype);
MPR_API MPI_Datatype PMPI_Type_f2c(MPI_Fint datatype);
MPR_API MPI_Fint PMPI_Request_c2f(MPI_Request request);
MPR_API MPI_Request PMPI_Request_f2c(MPI_Fint request);
MPR_API MPI_Fint PMPI_Op_c2f(MPI_Op op);
MPR_API MPI_Op PMPI_Op_f2c(MPI_Fint op);
MPR_API MPI_Fint PMPI_Info_c2f(MPI_Info info);
MPR_API MPI_Info PMPI_Info_f2c(MPI_Fint info);
MPR_API MPI_Fint PMPI_Errhandler_c2f(MPI_Errhandler errhandler);
MPR_API MPI_Errhandler PMPI_Errhandler_f2c(MPI_Fint errhandler);
MPR_API MPI_Fint PMPI_Message_c2f(MPI_Message message);
MPR_API MPI_Message PMPI_Message_f2c(MPI_Fint message);
MPR_API int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
MPR_API int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);

/* collectives: the rest of the MPI-1/2 set and the nonblocking (MPI-3) ones; Barrier, Bcast,
 * Reduce, Allreduce and Reduce_local are declared above. */
MPR_API int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                       MPI_Request *request);
MPR_API int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, int root, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
MPR_API int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                        MPI_Request *request);
MPR_API int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                        MPI_Comm comm);
MPR_API int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         int root, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
MPR_API int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                         MPI_Request *request);
MPR_API int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                         MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                         int root, MPI_Comm comm);
MPR_API int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request);
MPR_API int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                           MPI_Comm comm);
MPR_API int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Request *request);
MPR_API int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                          MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                          const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request);
MPR_API int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                          const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                          const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
MPR_API int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                           MPI_Request *request);
MPR_API int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
MPR_API int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request *request);
MPR_API int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
MPR_API int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                      MPI_Request *request);
MPR_API int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm);
MPR_API int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm);
MPR_API int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request);

MPR_API int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                        MPI_Request *request);
MPR_API int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, int root, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
MPR_API int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                         MPI_Request *request);
MPR_API int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         int root, MPI_Comm comm);
MPR_API int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                          int root, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
MPR_API int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                          MPI_Request *request);
MPR_API int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm);
MPR_API int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request);
MPR_API int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request);
MPR_API int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request);
MPR_API int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
MPR_API int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request);
MPR_API int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
MPR_API int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 MPI_Request *request);
MPR_API int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
MPR_API int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                       MPI_Request *request);
MPR_API int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm);
MPR_API int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm);
MPR_API int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request);
/* end of collectives */

MPR_API int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            MPI_Win *win);
MPR_API int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                              void *baseptr, MPI_Win *win);
MPR_API int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                     void *baseptr, MPI_Win *win);
MPR_API int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                                  void *baseptr);
MPR_API int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);
MPR_API int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size);
MPR_API int PMPI_Win_detach(MPI_Win win, const void *base);
MPR_API int PMPI_Win_free(MPI_Win *win);
MPR_API int PMPI_Win_get_group(MPI_Win win, MPI_Group *group);
MPR_API int PMPI_Win_set_name(MPI_Win win, const char *win_name);
MPR_API int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen);
MPR_API int PMPI_Win_set_info(MPI_Win win, MPI_Info info);
MPR_API int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used);
MPR_API int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                                   MPI_Win_delete_attr_function *win_delete_attr_fn,
                                   int *win_keyval, void *extra_state);
MPR_API int PMPI_Win_free_keyval(int *win_keyval);
MPR_API int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val);
MPR_API int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
MPR_API int PMPI_Win_delete_attr(MPI_Win win, int win_keyval);
MPR_API int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                                       MPI_Errhandler *errhandler);
MPR_API int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
MPR_API int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler);
MPR_API int PMPI_Win_call_errhandler(MPI_Win win, int errorcode);
MPR_API int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Win win);
MPR_API int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Win win);
MPR_API int PMPI_Accumulate(const void *origin_addr, int origin_count,
                            MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                            int target_count, MPI_Datatype target_datatype, MPI_Op op,
                            MPI_Win win);
MPR_API int PMPI_Get_accumulate(const void *origin_addr, int origin_count,
                                MPI_Datatype origin_datatype, void *result_addr,
                                int result_count, MPI_Datatype result_datatype, int target_rank,
                                MPI_Aint target_disp, int target_count,
                                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
MPR_API int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                              int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win);
MPR_API int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                                  void *result_addr, MPI_Datatype datatype, int target_rank,
                                  MPI_Aint target_disp, MPI_Win win);
MPR_API int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, int target_count,
                      MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
MPR_API int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, int target_count,
                      MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
MPR_API int PMPI_Raccumulate(const void *origin_addr, int origin_count,
                             MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                             int target_count, MPI_Datatype target_datatype, MPI_Op op,
                             MPI_Win win, MPI_Request *request);
MPR_API int PMPI_Rget_accumulate(const void *origin_addr, int origin_count,
                                 MPI_Datatype origin_datatype, void *result_addr,
                                 int result_count, MPI_Datatype result_datatype, int target_rank,
                                 MPI_Aint target_disp, int target_count,
                                 MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                 MPI_Request *request);
MPR_API int PMPI_Win_fence(int assert, MPI_Win win);
MPR_API int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win);
MPR_API int PMPI_Win_unlock(int rank, MPI_Win win);
MPR_API int PMPI_Win_lock_all(int assert, MPI_Win win);
MPR_API int PMPI_Win_unlock_all(MPI_Win win);
MPR_API int PMPI_Win_flush(int rank, MPI_Win win);
MPR_API int PMPI_Win_flush_all(MPI_Win win);
MPR_API int PMPI_Win_flush_local(int rank, MPI_Win win);
MPR_API int PMPI_Win_flush_local_all(MPI_Win win);
MPR_API int PMPI_Win_sync(MPI_Win win);
MPR_API int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win);
MPR_API int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win);
MPR_API int PMPI_Win_complete(MPI_Win win);
MPR_API int PMPI_Win_wait(MPI_Win win);
MPR_API int PMPI_Win_test(MPI_Win win, int *flag);
MPR_API MPI_Fint PMPI_Win_c2f(MPI_Win win);
MPR_API MPI_Win PMPI_Win_f2c(MPI_Fint win);

/* persistent collectives (MPI-4): each MPI_Start runs the operation once more */
MPR_API int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                           MPI_Info info, MPI_Request *request);
MPR_API int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, int root, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request);
MPR_API int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int MPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int MPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request);
MPR_API int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                          MPI_Info info, MPI_Request *request);
MPR_API int MPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int MPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request);
MPR_API int MPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int MPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                              MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                              MPI_Request *request);
MPR_API int MPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request);
MPR_API int MPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                MPI_Request *request);
MPR_API int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Info info, MPI_Request *request);
MPR_API int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request);
MPR_API int MPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               const MPI_Datatype sendtypes[], void *recvbuf,
                               const int recvcounts[], const int rdispls[],
                               const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                               MPI_Request *request);
MPR_API int MPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                        MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int MPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                         void *recvbuf, const int recvcounts[], const int displs[],
                                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                         MPI_Request *request);
MPR_API int MPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                       MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                        const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                        const int recvcounts[], const int rdispls[],
                                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                        MPI_Request *request);
MPR_API int MPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                        const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                        void *recvbuf, const int recvcounts[],
                                        const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                        MPI_Comm comm, MPI_Info info, MPI_Request *request);

MPR_API int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                            MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                             MPI_Op op, int root, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request);
MPR_API int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                MPI_Request *request);
MPR_API int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                     MPI_Request *request);
MPR_API int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                           MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                              MPI_Request *request);
MPR_API int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                              MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request);
MPR_API int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request);
MPR_API int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                const MPI_Datatype sendtypes[], void *recvbuf,
                                const int recvcounts[], const int rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                MPI_Request *request);
MPR_API int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                         void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                         MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                          void *recvbuf, const int recvcounts[], const int displs[],
                                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                          MPI_Request *request);
MPR_API int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                        MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                         const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                         const int recvcounts[], const int rdispls[],
                                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                         MPI_Request *request);
MPR_API int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                         void *recvbuf, const int recvcounts[],
                                         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                         MPI_Comm comm, MPI_Info info, MPI_Request *request);

/* ---- partitioned point-to-point (MPI 4.0) ---- */
MPR_API int MPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                       int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int MPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                       int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int MPI_Pready(int partition, MPI_Request request);
MPR_API int MPI_Pready_range(int partition_low, int partition_high, MPI_Request request);
MPR_API int MPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request);
MPR_API int MPI_Parrived(MPI_Request request, int partition, int *flag);
/* ---- tool information interface (MPI_T) ---- */
MPR_API int MPI_T_init_thread(int required, int *provided);
MPR_API int MPI_T_finalize(void);
MPR_API int MPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len);
MPR_API int MPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len);
MPR_API int MPI_T_cvar_get_num(int *num_cvar);
MPR_API int MPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                             MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                             int *bind, int *scope);
MPR_API int MPI_T_cvar_get_index(const char *name, int *cvar_index);
MPR_API int MPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                                 int *count);
MPR_API int MPI_T_cvar_handle_free(MPI_T_cvar_handle *handle);
MPR_API int MPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf);
MPR_API int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf);
MPR_API int MPI_T_pvar_get_num(int *num_pvar);
MPR_API int MPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                             int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                             int *desc_len, int *bind, int *readonly, int *continuous, int *atomic);
MPR_API int MPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index);
MPR_API int MPI_T_pvar_session_create(MPI_T_pvar_session *session);
MPR_API int MPI_T_pvar_session_free(MPI_T_pvar_session *session);
MPR_API int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                                 MPI_T_pvar_handle *handle, int *count);
MPR_API int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle);
MPR_API int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
MPR_API int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
MPR_API int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
MPR_API int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf);
MPR_API int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
MPR_API int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
MPR_API int MPI_T_category_get_num(int *num_cat);
MPR_API int MPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                                 int *num_cvars, int *num_pvars, int *num_categories);
MPR_API int MPI_T_category_get_num_events(int cat_index, int *num_events);
MPR_API int MPI_T_category_get_index(const char *name, int *cat_index);
MPR_API int MPI_T_category_get_cvars(int cat_index, int len, int indices[]);
MPR_API int MPI_T_category_get_pvars(int cat_index, int len, int indices[]);
MPR_API int MPI_T_category_get_events(int cat_index, int len, int indices[]);
MPR_API int MPI_T_category_get_categories(int cat_index, int len, int indices[]);
MPR_API int MPI_T_category_changed(int *update_number);
MPR_API int MPI_T_source_get_num(int *num_sources);
MPR_API int MPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                               MPI_T_source_order *ordering, MPI_Count *ticks_per_second,
                               MPI_Count *max_ticks, MPI_Info *info);
MPR_API int MPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp);
MPR_API int MPI_T_event_get_num(int *num_events);
MPR_API int MPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                              MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                              int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                              int *desc_len, int *bind);
MPR_API int MPI_T_event_get_index(const char *name, int *event_index);
MPR_API int MPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                                  MPI_T_event_registration *event_registration);
MPR_API int MPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info);
MPR_API int MPI_T_event_handle_get_info(MPI_T_event_registration event_registration,
                                     MPI_Info *info_used);
MPR_API int MPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                       MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                       MPI_T_event_cb_function *event_cb_function);
MPR_API int MPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                       MPI_T_cb_safety cb_safety, MPI_Info info);
MPR_API int MPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                       MPI_T_cb_safety cb_safety, MPI_Info *info_used);
MPR_API int MPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                                 MPI_T_event_free_cb_function *free_cb_function);
MPR_API int MPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                         MPI_T_event_dropped_cb_function *dropped_cb_function);
MPR_API int MPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer);
MPR_API int MPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer);
MPR_API int MPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp);
MPR_API int MPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index);
/* ---- sessions (MPI 4.0) ------------------------------------------------------------------ */
MPR_API int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session);
MPR_API int MPI_Session_finalize(MPI_Session *session);
MPR_API int MPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names);
MPR_API int MPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                                 char *pset_name);
MPR_API int MPI_Session_get_info(MPI_Session session, MPI_Info *info_used);
MPR_API int MPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info);
MPR_API int MPI_Group_from_session_pset(MPI_Session session, const char *pset_name,
                                    MPI_Group *newgroup);
MPR_API int MPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                   MPI_Errhandler errhandler, MPI_Comm *newcomm);
MPR_API int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                         MPI_Group remote_group, int remote_leader,
                                         const char *stringtag, MPI_Info info,
                                         MPI_Errhandler errhandler, MPI_Comm *newintercomm);
MPR_API int MPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                      MPI_Errhandler *errhandler);
MPR_API int MPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler);
MPR_API int MPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler);
MPR_API int MPI_Session_call_errhandler(MPI_Session session, int errorcode);
MPR_API int MPI_Session_attach_buffer(MPI_Session session, void *buffer, int size);
MPR_API int MPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size);
MPR_API int MPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size);
MPR_API int MPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size);
MPR_API int MPI_Session_flush_buffer(MPI_Session session);
MPR_API int MPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request);
MPR_API MPI_Fint MPI_Session_c2f(MPI_Session session);
MPR_API MPI_Session MPI_Session_f2c(MPI_Fint session);

/* ---- large counts (MPI 4.0, the _c forms): MPI_Count counts and displacements ---------- */
MPR_API int MPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op);
MPR_API int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op);
/* point-to-point */
MPR_API int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm);
MPR_API int MPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm);
MPR_API int MPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm);
MPR_API int MPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm);
MPR_API int MPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int tag, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int tag, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int tag, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                       MPI_Comm comm, MPI_Status *status);
MPR_API int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                        MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                            MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                        MPI_Status *status);
MPR_API int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                         MPI_Request *request);
MPR_API int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           int dest, int sendtag, void *recvbuf, MPI_Count recvcount,
                           MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                           MPI_Status *status);
MPR_API int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                   int sendtag, int source, int recvtag, MPI_Comm comm,
                                   MPI_Status *status);
MPR_API int MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            int dest, int sendtag, void *recvbuf, MPI_Count recvcount,
                            MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                            MPI_Request *request);
MPR_API int MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                    int sendtag, int source, int recvtag, MPI_Comm comm,
                                    MPI_Request *request);
MPR_API int MPI_Buffer_attach_c(void *buffer, MPI_Count size);
MPR_API int MPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size);
/* datatypes, status and packing */
MPR_API int MPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
MPR_API int MPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
MPR_API int MPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
MPR_API int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size);
MPR_API int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
MPR_API int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb,
                                       MPI_Count *true_extent);
MPR_API int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                              MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                      MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                               const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                               MPI_Datatype *newtype);
MPR_API int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                       const MPI_Count array_of_displacements[],
                                       MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                            const MPI_Count array_of_displacements[],
                                            MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                             const MPI_Count array_of_displacements[],
                                             MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                     const MPI_Count array_of_displacements[],
                                     const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
MPR_API int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                                      MPI_Datatype *newtype);
MPR_API int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                       const MPI_Count array_of_subsizes[],
                                       const MPI_Count array_of_starts[], int order,
                                       MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int MPI_Type_create_darray_c(int size, int rank, int ndims,
                                     const MPI_Count array_of_gsizes[],
                                     const int array_of_distribs[], const int array_of_dargs[],
                                     const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                     MPI_Datatype *newtype);
MPR_API int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                                    MPI_Count *num_addresses, MPI_Count *num_large_counts,
                                    MPI_Count *num_datatypes, int *combiner);
MPR_API int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                                    MPI_Count max_addresses, MPI_Count max_large_counts,
                                    MPI_Count max_datatypes, int array_of_integers[],
                                    MPI_Aint array_of_addresses[],
                                    MPI_Count array_of_large_counts[],
                                    MPI_Datatype array_of_datatypes[]);
MPR_API int MPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                       MPI_Count outsize, MPI_Count *position, MPI_Comm comm);
MPR_API int MPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                         MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm);
MPR_API int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                            MPI_Count *size);
MPR_API int MPI_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount,
                                MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                                MPI_Count *position);
MPR_API int MPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                                  MPI_Count *position, void *outbuf, MPI_Count outcount,
                                  MPI_Datatype datatype);
MPR_API int MPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                                     MPI_Count *size);
/* collectives */
MPR_API int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                        MPI_Comm comm);
MPR_API int MPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                         MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                             MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Op op, int root, MPI_Comm comm);
MPR_API int MPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                          MPI_Request *request);
MPR_API int MPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                              MPI_Info info, MPI_Request *request);
MPR_API int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
MPR_API int MPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request);
MPR_API int MPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Op op);
MPR_API int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm);
MPR_API int MPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request);
MPR_API int MPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm);
MPR_API int MPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                              MPI_Request *request);
MPR_API int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
MPR_API int MPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                        MPI_Request *request);
MPR_API int MPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                            MPI_Info info, MPI_Request *request);
MPR_API int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                         MPI_Comm comm);
MPR_API int MPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                              MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm);
MPR_API int MPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm);
MPR_API int MPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                           MPI_Comm comm);
MPR_API int MPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int MPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                          MPI_Datatype recvtype, int root, MPI_Comm comm);
MPR_API int MPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request);
MPR_API int MPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
                           const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                           MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
MPR_API int MPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
                            const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                            MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                            MPI_Request *request);
MPR_API int MPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                                MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request);
MPR_API int MPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                             MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int MPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Info info, MPI_Request *request);
MPR_API int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                            const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                            const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                            MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int MPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                             const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                 const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                 const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request);
MPR_API int MPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                            const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                            const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm);
MPR_API int MPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
MPR_API int MPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                  MPI_Request *request);
MPR_API int MPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf,
                                      const MPI_Count recvcounts[], MPI_Datatype datatype,
                                      MPI_Op op, MPI_Comm comm, MPI_Info info,
                                      MPI_Request *request);
MPR_API int MPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount,
                                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int MPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount,
                                      MPI_Datatype sendtype, void *recvbuf,
                                      const MPI_Count recvcounts[], const MPI_Aint displs[],
                                      MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int MPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                    MPI_Comm comm);
MPR_API int MPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                                     const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                     const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                     MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int MPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                                     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                     void *recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                     MPI_Comm comm);
MPR_API int MPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount,
                                      MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount,
                                       MPI_Datatype sendtype, void *recvbuf,
                                       const MPI_Count recvcounts[], const MPI_Aint displs[],
                                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount,
                                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                                      const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                      void *recvbuf, const MPI_Count recvcounts[],
                                      const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                      MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                                      const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                      void *recvbuf, const MPI_Count recvcounts[],
                                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                      MPI_Comm comm, MPI_Request *request);
MPR_API int MPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount,
                                          MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                          MPI_Request *request);
MPR_API int MPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,
                                           MPI_Datatype sendtype, void *recvbuf,
                                           const MPI_Count recvcounts[], const MPI_Aint displs[],
                                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                           MPI_Request *request);
MPR_API int MPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount,
                                         MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                         MPI_Request *request);
MPR_API int MPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                          const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                          void *recvbuf, const MPI_Count recvcounts[],
                                          const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                          MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int MPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                          void *recvbuf, const MPI_Count recvcounts[],
                                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                          MPI_Comm comm, MPI_Info info, MPI_Request *request);
/* one-sided */
MPR_API int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                             MPI_Comm comm, MPI_Win *win);
MPR_API int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void *baseptr, MPI_Win *win);
MPR_API int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                      MPI_Comm comm, void *baseptr, MPI_Win *win);
MPR_API int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                                   void *baseptr);
MPR_API int MPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Win win);
MPR_API int MPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Win win);
MPR_API int MPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count,
                             MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                             MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                             MPI_Win win);
MPR_API int MPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                                 MPI_Datatype origin_datatype, void *result_addr,
                                 MPI_Count result_count, MPI_Datatype result_datatype,
                                 int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                 MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
MPR_API int MPI_Rput_c(const void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                       MPI_Request *request);
MPR_API int MPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                       int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                       MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
MPR_API int MPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
                              MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                              MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                              MPI_Win win, MPI_Request *request);
MPR_API int MPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                                  MPI_Datatype origin_datatype, void *result_addr,
                                  MPI_Count result_count, MPI_Datatype result_datatype,
                                  int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                  MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                  MPI_Request *request);

/* point-to-point */
MPR_API int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm);
MPR_API int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm);
MPR_API int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm);
MPR_API int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm);
MPR_API int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                          int tag, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                          int tag, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                          int tag, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int tag, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                        MPI_Comm comm, MPI_Status *status);
MPR_API int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                         MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                             MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                         MPI_Status *status);
MPR_API int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                          MPI_Request *request);
MPR_API int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            int dest, int sendtag, void *recvbuf, MPI_Count recvcount,
                            MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                            MPI_Status *status);
MPR_API int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                    int sendtag, int source, int recvtag, MPI_Comm comm,
                                    MPI_Status *status);
MPR_API int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             int dest, int sendtag, void *recvbuf, MPI_Count recvcount,
                             MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request);
MPR_API int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                     int sendtag, int source, int recvtag, MPI_Comm comm,
                                     MPI_Request *request);
MPR_API int PMPI_Buffer_attach_c(void *buffer, MPI_Count size);
MPR_API int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size);
/* datatypes, status and packing */
MPR_API int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
MPR_API int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
MPR_API int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
MPR_API int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size);
MPR_API int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
MPR_API int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb,
                                        MPI_Count *true_extent);
MPR_API int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                       MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                        const MPI_Count array_of_displacements[],
                                        MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                             const MPI_Count array_of_displacements[],
                                             MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                              const MPI_Count array_of_displacements[],
                                              MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                      const MPI_Count array_of_displacements[],
                                      const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                                       MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                        const MPI_Count array_of_subsizes[],
                                        const MPI_Count array_of_starts[], int order,
                                        MPI_Datatype oldtype, MPI_Datatype *newtype);
MPR_API int PMPI_Type_create_darray_c(int size, int rank, int ndims,
                                      const MPI_Count array_of_gsizes[],
                                      const int array_of_distribs[], const int array_of_dargs[],
                                      const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                      MPI_Datatype *newtype);
MPR_API int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                                     MPI_Count *num_addresses, MPI_Count *num_large_counts,
                                     MPI_Count *num_datatypes, int *combiner);
MPR_API int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                                     MPI_Count max_addresses, MPI_Count max_large_counts,
                                     MPI_Count max_datatypes, int array_of_integers[],
                                     MPI_Aint array_of_addresses[],
                                     MPI_Count array_of_large_counts[],
                                     MPI_Datatype array_of_datatypes[]);
MPR_API int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                        MPI_Count outsize, MPI_Count *position, MPI_Comm comm);
MPR_API int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                          MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm);
MPR_API int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                             MPI_Count *size);
MPR_API int PMPI_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount,
                                 MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                                 MPI_Count *position);
MPR_API int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                                   MPI_Count *position, void *outbuf, MPI_Count outcount,
                                   MPI_Datatype datatype);
MPR_API int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount,
                                      MPI_Datatype datatype, MPI_Count *size);
/* collectives */
MPR_API int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                         MPI_Comm comm);
MPR_API int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                          MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                              MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);
MPR_API int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                           MPI_Request *request);
MPR_API int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
MPR_API int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request);
MPR_API int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request);
MPR_API int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Op op);
MPR_API int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm);
MPR_API int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request);
MPR_API int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
MPR_API int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request);
MPR_API int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
MPR_API int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                         MPI_Request *request);
MPR_API int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf,
                                             MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op,
                                             MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm);
MPR_API int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm);
MPR_API int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm);
MPR_API int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm);
MPR_API int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, int root, MPI_Comm comm);
MPR_API int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
                            const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                            MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
MPR_API int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                             MPI_Request *request);
MPR_API int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                 const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                                 MPI_Count recvcount, MPI_Datatype recvtype, int root,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                              MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                             const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                  const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                  const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request);
MPR_API int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm);
MPR_API int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                  const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                  void *recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
MPR_API int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                   MPI_Request *request);
MPR_API int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf,
                                       const MPI_Count recvcounts[], MPI_Datatype datatype,
                                       MPI_Op op, MPI_Comm comm, MPI_Info info,
                                       MPI_Request *request);
MPR_API int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount,
                                      MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                      MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount,
                                       MPI_Datatype sendtype, void *recvbuf,
                                       const MPI_Count recvcounts[], const MPI_Aint displs[],
                                       MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount,
                                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype recvtype, MPI_Comm comm);
MPR_API int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                                      const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                      void *recvbuf, const MPI_Count recvcounts[],
                                      const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                      MPI_Comm comm);
MPR_API int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                                      const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                      void *recvbuf, const MPI_Count recvcounts[],
                                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                      MPI_Comm comm);
MPR_API int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount,
                                       MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount,
                                        MPI_Datatype sendtype, void *recvbuf,
                                        const MPI_Count recvcounts[], const MPI_Aint displs[],
                                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount,
                                      MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                                       const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                       void *recvbuf, const MPI_Count recvcounts[],
                                       const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                       MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                                       const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                       void *recvbuf, const MPI_Count recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                       MPI_Comm comm, MPI_Request *request);
MPR_API int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount,
                                           MPI_Datatype sendtype, void *recvbuf,
                                           MPI_Count recvcount, MPI_Datatype recvtype,
                                           MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,
                                            MPI_Datatype sendtype, void *recvbuf,
                                            const MPI_Count recvcounts[], const MPI_Aint displs[],
                                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                            MPI_Request *request);
MPR_API int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount,
                                          MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                          MPI_Request *request);
MPR_API int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                           const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                           void *recvbuf, const MPI_Count recvcounts[],
                                           const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                           MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                           const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                           void *recvbuf, const MPI_Count recvcounts[],
                                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                           MPI_Comm comm, MPI_Info info, MPI_Request *request);
/* one-sided */
MPR_API int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                              MPI_Comm comm, MPI_Win *win);
MPR_API int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                void *baseptr, MPI_Win *win);
MPR_API int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                       MPI_Comm comm, void *baseptr, MPI_Win *win);
MPR_API int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                                    void *baseptr);
MPR_API int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win);
MPR_API int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                       int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                       MPI_Datatype target_datatype, MPI_Win win);
MPR_API int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count,
                              MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                              MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                              MPI_Win win);
MPR_API int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                                  MPI_Datatype origin_datatype, void *result_addr,
                                  MPI_Count result_count, MPI_Datatype result_datatype,
                                  int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                  MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
MPR_API int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count,
                        MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                        MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                        MPI_Request *request);
MPR_API int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                        MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
MPR_API int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
                               MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                               MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                               MPI_Win win, MPI_Request *request);
MPR_API int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                                   MPI_Datatype origin_datatype, void *result_addr,
                                   MPI_Count result_count, MPI_Datatype result_datatype,
                                   int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                   MPI_Request *request);


/* ---- partitioned point-to-point (MPI 4.0): profiling names ---- */
MPR_API int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                       int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                       int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);
MPR_API int PMPI_Pready(int partition, MPI_Request request);
MPR_API int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request);
MPR_API int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request);
MPR_API int PMPI_Parrived(MPI_Request request, int partition, int *flag);
/* ---- tool information interface (MPI_T): profiling names ---- */
MPR_API int PMPI_T_init_thread(int required, int *provided);
MPR_API int PMPI_T_finalize(void);
MPR_API int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len);
MPR_API int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len);
MPR_API int PMPI_T_cvar_get_num(int *num_cvar);
MPR_API int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                             MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                             int *bind, int *scope);
MPR_API int PMPI_T_cvar_get_index(const char *name, int *cvar_index);
MPR_API int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                                 int *count);
MPR_API int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle);
MPR_API int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf);
MPR_API int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf);
MPR_API int PMPI_T_pvar_get_num(int *num_pvar);
MPR_API int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                             int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                             int *desc_len, int *bind, int *readonly, int *continuous, int *atomic);
MPR_API int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index);
MPR_API int PMPI_T_pvar_session_create(MPI_T_pvar_session *session);
MPR_API int PMPI_T_pvar_session_free(MPI_T_pvar_session *session);
MPR_API int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                                 MPI_T_pvar_handle *handle, int *count);
MPR_API int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle);
MPR_API int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
MPR_API int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
MPR_API int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
MPR_API int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf);
MPR_API int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
MPR_API int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
MPR_API int PMPI_T_category_get_num(int *num_cat);
MPR_API int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                                 int *num_cvars, int *num_pvars, int *num_categories);
MPR_API int PMPI_T_category_get_num_events(int cat_index, int *num_events);
MPR_API int PMPI_T_category_get_index(const char *name, int *cat_index);
MPR_API int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]);
MPR_API int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]);
MPR_API int PMPI_T_category_get_events(int cat_index, int len, int indices[]);
MPR_API int PMPI_T_category_get_categories(int cat_index, int len, int indices[]);
MPR_API int PMPI_T_category_changed(int *update_number);
MPR_API int PMPI_T_source_get_num(int *num_sources);
MPR_API int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                               MPI_T_source_order *ordering, MPI_Count *ticks_per_second,
                               MPI_Count *max_ticks, MPI_Info *info);
MPR_API int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp);
MPR_API int PMPI_T_event_get_num(int *num_events);
MPR_API int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                              MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                              int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                              int *desc_len, int *bind);
MPR_API int PMPI_T_event_get_index(const char *name, int *event_index);
MPR_API int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                                  MPI_T_event_registration *event_registration);
MPR_API int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info);
MPR_API int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration,
                                     MPI_Info *info_used);
MPR_API int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                       MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                       MPI_T_event_cb_function *event_cb_function);
MPR_API int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                       MPI_T_cb_safety cb_safety, MPI_Info info);
MPR_API int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                       MPI_T_cb_safety cb_safety, MPI_Info *info_used);
MPR_API int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                                 MPI_T_event_free_cb_function *free_cb_function);
MPR_API int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                         MPI_T_event_dropped_cb_function *dropped_cb_function);
MPR_API int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer);
MPR_API int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer);
MPR_API int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp);
MPR_API int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index);
/* ---- sessions: profiling names ----------------------------------------------------------- */
MPR_API int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session);
MPR_API int PMPI_Session_finalize(MPI_Session *session);
MPR_API int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names);
MPR_API int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                                 char *pset_name);
MPR_API int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used);
MPR_API int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info);
MPR_API int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name,
                                    MPI_Group *newgroup);
MPR_API int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                   MPI_Errhandler errhandler, MPI_Comm *newcomm);
MPR_API int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                         MPI_Group remote_group, int remote_leader,
                                         const char *stringtag, MPI_Info info,
                                         MPI_Errhandler errhandler, MPI_Comm *newintercomm);
MPR_API int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                      MPI_Errhandler *errhandler);
MPR_API int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler);
MPR_API int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler);
MPR_API int PMPI_Session_call_errhandler(MPI_Session session, int errorcode);
MPR_API int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size);
MPR_API int PMPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size);
MPR_API int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size);
MPR_API int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size);
MPR_API int PMPI_Session_flush_buffer(MPI_Session session);
MPR_API int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request);
MPR_API MPI_Fint PMPI_Session_c2f(MPI_Session session);
MPR_API MPI_Session PMPI_Session_f2c(MPI_Fint session);

/* ---- MPI-IO (files): types and constants ------------------------------------------------------
 * Values as MPICH's, so programs that print or store them see familiar numbers. */
typedef struct mpr_file_s *MPI_File;
#define MPI_FILE_NULL ((MPI_File)0)

typedef void MPI_File_errhandler_function(MPI_File *file, int *error_code, ...);
typedef MPI_File_errhandler_function MPI_File_errhandler_fn; /* MPI-2 name */
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint *extent,
                                        void *extra_state);
typedef int MPI_Datarep_conversion_function(void *userbuf, MPI_Datatype datatype, int count,
                                            void *filebuf, MPI_Offset position,
                                            void *extra_state);
typedef int MPI_Datarep_conversion_function_c(void *userbuf, MPI_Datatype datatype,
                                              MPI_Count count, void *filebuf,
                                              MPI_Offset position, void *extra_state);
#define MPI_CONVERSION_FN_NULL ((MPI_Datarep_conversion_function *)0)
#define MPI_CONVERSION_FN_NULL_C ((MPI_Datarep_conversion_function_c *)0)
#define MPI_MAX_DATAREP_STRING 128

/* MPI_File_open access modes (distinct from the window assertions MPI_MODE_NOCHECK...) */
#define MPI_MODE_CREATE 1
#define MPI_MODE_RDONLY 2
#define MPI_MODE_WRONLY 4
#define MPI_MODE_RDWR 8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_EXCL 64
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256

/* MPI_File_seek(_shared) */
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604

/* MPI_File_set_view: the view starts at the current shared file pointer (sequential files) */
#define MPI_DISPLACEMENT_CURRENT (-54278278)

/* ---- MPI-IO (files) ---------------------------------------------------------------------- */
MPR_API int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                          MPI_File *fh);
MPR_API int MPI_File_close(MPI_File *fh);
MPR_API int MPI_File_delete(const char *filename, MPI_Info info);
MPR_API int MPI_File_set_size(MPI_File fh, MPI_Offset size);
MPR_API int MPI_File_preallocate(MPI_File fh, MPI_Offset size);
MPR_API int MPI_File_get_size(MPI_File fh, MPI_Offset *size);
MPR_API int MPI_File_get_group(MPI_File fh, MPI_Group *group);
MPR_API int MPI_File_get_amode(MPI_File fh, int *amode);
MPR_API int MPI_File_set_info(MPI_File fh, MPI_Info info);
MPR_API int MPI_File_get_info(MPI_File fh, MPI_Info *info_used);
MPR_API int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                              MPI_Datatype filetype, const char *datarep, MPI_Info info);
MPR_API int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,
                              MPI_Datatype *filetype, char *datarep);
MPR_API int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                             MPI_Datatype datatype, MPI_Status *status);
MPR_API int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                              MPI_Datatype datatype, MPI_Status *status);
MPR_API int MPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Status *status);
MPR_API int MPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Status *status);
MPR_API int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                 MPI_Datatype datatype, MPI_Status *status);
MPR_API int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                  MPI_Datatype datatype, MPI_Status *status);
MPR_API int MPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                   MPI_Datatype datatype, MPI_Status *status);
MPR_API int MPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf,
                                    MPI_Count count, MPI_Datatype datatype, MPI_Status *status);
MPR_API int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                              MPI_Datatype datatype, MPI_Request *request);
MPR_API int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                               MPI_Datatype datatype, MPI_Request *request);
MPR_API int MPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Request *request);
MPR_API int MPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                 MPI_Datatype datatype, MPI_Request *request);
MPR_API int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                  MPI_Datatype datatype, MPI_Request *request);
MPR_API int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                   MPI_Datatype datatype, MPI_Request *request);
MPR_API int MPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                    MPI_Datatype datatype, MPI_Request *request);
MPR_API int MPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf,
                                     MPI_Count count, MPI_Datatype datatype, MPI_Request *request);
MPR_API int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status);
MPR_API int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status);
MPR_API int MPI_File_read_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status);
MPR_API int MPI_File_write_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status);
MPR_API int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                              MPI_Status *status);
MPR_API int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                               MPI_Status *status);
MPR_API int MPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                MPI_Status *status);
MPR_API int MPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count,
                                 MPI_Datatype datatype, MPI_Status *status);
MPR_API int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request);
MPR_API int MPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Request *request);
MPR_API int MPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Request *request);
MPR_API int MPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Request *request);
MPR_API int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                               MPI_Request *request);
MPR_API int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                MPI_Request *request);
MPR_API int MPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                 MPI_Request *request);
MPR_API int MPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Request *request);
MPR_API int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence);
MPR_API int MPI_File_get_position(MPI_File fh, MPI_Offset *offset);
MPR_API int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp);
MPR_API int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                 MPI_Status *status);
MPR_API int MPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                  MPI_Status *status);
MPR_API int MPI_File_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                   MPI_Status *status);
MPR_API int MPI_File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count,
                                    MPI_Datatype datatype, MPI_Status *status);
MPR_API int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                  MPI_Request *request);
MPR_API int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                   MPI_Request *request);
MPR_API int MPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                    MPI_Request *request);
MPR_API int MPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count,
                                     MPI_Datatype datatype, MPI_Request *request);
MPR_API int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                  MPI_Status *status);
MPR_API int MPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                   MPI_Status *status);
MPR_API int MPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                    MPI_Status *status);
MPR_API int MPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count,
                                     MPI_Datatype datatype, MPI_Status *status);
MPR_API int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence);
MPR_API int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset);
MPR_API int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                       MPI_Datatype datatype);
MPR_API int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                        MPI_Datatype datatype);
MPR_API int MPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                         MPI_Datatype datatype);
MPR_API int MPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void *buf,
                                          MPI_Count count, MPI_Datatype datatype);
MPR_API int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status);
MPR_API int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status);
MPR_API int MPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
MPR_API int MPI_File_write_all_begin(MPI_File fh, const void *buf, int count,
                                     MPI_Datatype datatype);
MPR_API int MPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count,
                                      MPI_Datatype datatype);
MPR_API int MPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                       MPI_Datatype datatype);
MPR_API int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status);
MPR_API int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status);
MPR_API int MPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
MPR_API int MPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count,
                                         MPI_Datatype datatype);
MPR_API int MPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count,
                                          MPI_Datatype datatype);
MPR_API int MPI_File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                           MPI_Datatype datatype);
MPR_API int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status);
MPR_API int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status);
MPR_API int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent);
MPR_API int MPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent);
MPR_API int MPI_Register_datarep(const char *datarep,
                                 MPI_Datarep_conversion_function *read_conversion_fn,
                                 MPI_Datarep_conversion_function *write_conversion_fn,
                                 MPI_Datarep_extent_function *dtype_file_extent_fn,
                                 void *extra_state);
MPR_API int MPI_Register_datarep_c(const char *datarep,
                                   MPI_Datarep_conversion_function_c *read_conversion_fn,
                                   MPI_Datarep_conversion_function_c *write_conversion_fn,
                                   MPI_Datarep_extent_function *dtype_file_extent_fn,
                                   void *extra_state);
MPR_API int MPI_File_set_atomicity(MPI_File fh, int flag);
MPR_API int MPI_File_get_atomicity(MPI_File fh, int *flag);
MPR_API int MPI_File_sync(MPI_File fh);
MPR_API int MPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                                       MPI_Errhandler *errhandler);
MPR_API int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler);
MPR_API int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler);
MPR_API int MPI_File_call_errhandler(MPI_File fh, int errorcode);
MPR_API MPI_Fint MPI_File_c2f(MPI_File file);
MPR_API MPI_File MPI_File_f2c(MPI_Fint file);
/* ---- MPI-IO: profiling names ------------------------------------------------------------ */
MPR_API int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                           MPI_File *fh);
MPR_API int PMPI_File_close(MPI_File *fh);
MPR_API int PMPI_File_delete(const char *filename, MPI_Info info);
MPR_API int PMPI_File_set_size(MPI_File fh, MPI_Offset size);
MPR_API int PMPI_File_preallocate(MPI_File fh, MPI_Offset size);
MPR_API int PMPI_File_get_size(MPI_File fh, MPI_Offset *size);
MPR_API int PMPI_File_get_group(MPI_File fh, MPI_Group *group);
MPR_API int PMPI_File_get_amode(MPI_File fh, int *amode);
MPR_API int PMPI_File_set_info(MPI_File fh, MPI_Info info);
MPR_API int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used);
MPR_API int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                               MPI_Datatype filetype, const char *datarep, MPI_Info info);
MPR_API int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,
                               MPI_Datatype *filetype, char *datarep);
MPR_API int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                              MPI_Datatype datatype, MPI_Status *status);
MPR_API int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                               MPI_Datatype datatype, MPI_Status *status);
MPR_API int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Status *status);
MPR_API int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                 MPI_Datatype datatype, MPI_Status *status);
MPR_API int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                  MPI_Datatype datatype, MPI_Status *status);
MPR_API int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                   MPI_Datatype datatype, MPI_Status *status);
MPR_API int PMPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                    MPI_Datatype datatype, MPI_Status *status);
MPR_API int PMPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf,
                                     MPI_Count count, MPI_Datatype datatype, MPI_Status *status);
MPR_API int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                               MPI_Datatype datatype, MPI_Request *request);
MPR_API int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                MPI_Datatype datatype, MPI_Request *request);
MPR_API int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                 MPI_Datatype datatype, MPI_Request *request);
MPR_API int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Request *request);
MPR_API int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                   MPI_Datatype datatype, MPI_Request *request);
MPR_API int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                    MPI_Datatype datatype, MPI_Request *request);
MPR_API int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                     MPI_Datatype datatype, MPI_Request *request);
MPR_API int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf,
                                      MPI_Count count, MPI_Datatype datatype, MPI_Request *request);
MPR_API int PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status);
MPR_API int PMPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Status *status);
MPR_API int PMPI_File_read_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status);
MPR_API int PMPI_File_write_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Status *status);
MPR_API int PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                               MPI_Status *status);
MPR_API int PMPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                MPI_Status *status);
MPR_API int PMPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                 MPI_Status *status);
MPR_API int PMPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Status *status);
MPR_API int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                            MPI_Request *request);
MPR_API int PMPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                             MPI_Request *request);
MPR_API int PMPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Request *request);
MPR_API int PMPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                               MPI_Request *request);
MPR_API int PMPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                MPI_Request *request);
MPR_API int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                 MPI_Request *request);
MPR_API int PMPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                  MPI_Request *request);
MPR_API int PMPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count,
                                   MPI_Datatype datatype, MPI_Request *request);
MPR_API int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence);
MPR_API int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset);
MPR_API int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp);
MPR_API int PMPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                  MPI_Status *status);
MPR_API int PMPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                   MPI_Status *status);
MPR_API int PMPI_File_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                    MPI_Status *status);
MPR_API int PMPI_File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count,
                                     MPI_Datatype datatype, MPI_Status *status);
MPR_API int PMPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                   MPI_Request *request);
MPR_API int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                    MPI_Request *request);
MPR_API int PMPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                     MPI_Request *request);
MPR_API int PMPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count,
                                      MPI_Datatype datatype, MPI_Request *request);
MPR_API int PMPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                   MPI_Status *status);
MPR_API int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                    MPI_Status *status);
MPR_API int PMPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                                     MPI_Status *status);
MPR_API int PMPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count,
                                      MPI_Datatype datatype, MPI_Status *status);
MPR_API int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence);
MPR_API int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset);
MPR_API int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                        MPI_Datatype datatype);
MPR_API int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                         MPI_Datatype datatype);
MPR_API int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf,
                                          MPI_Count count, MPI_Datatype datatype);
MPR_API int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void *buf,
                                           MPI_Count count, MPI_Datatype datatype);
MPR_API int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status);
MPR_API int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status);
MPR_API int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
MPR_API int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count,
                                      MPI_Datatype datatype);
MPR_API int PMPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count,
                                       MPI_Datatype datatype);
MPR_API int PMPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                        MPI_Datatype datatype);
MPR_API int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status);
MPR_API int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status);
MPR_API int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
MPR_API int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count,
                                          MPI_Datatype datatype);
MPR_API int PMPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count,
                                           MPI_Datatype datatype);
MPR_API int PMPI_File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                            MPI_Datatype datatype);
MPR_API int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status);
MPR_API int PMPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status);
MPR_API int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent);
MPR_API int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent);
MPR_API int PMPI_Register_datarep(const char *datarep,
                                  MPI_Datarep_conversion_function *read_conversion_fn,
                                  MPI_Datarep_conversion_function *write_conversion_fn,
                                  MPI_Datarep_extent_function *dtype_file_extent_fn,
                                  void *extra_state);
MPR_API int PMPI_Register_datarep_c(const char *datarep,
                                    MPI_Datarep_conversion_function_c *read_conversion_fn,
                                    MPI_Datarep_conversion_function_c *write_conversion_fn,
                                    MPI_Datarep_extent_function *dtype_file_extent_fn,
                                    void *extra_state);
MPR_API int PMPI_File_set_atomicity(MPI_File fh, int flag);
MPR_API int PMPI_File_get_atomicity(MPI_File fh, int *flag);
MPR_API int PMPI_File_sync(MPI_File fh);
MPR_API int PMPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                                        MPI_Errhandler *errhandler);
MPR_API int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler);
MPR_API int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler);
MPR_API int PMPI_File_call_errhandler(MPI_File fh, int errorcode);
MPR_API MPI_Fint PMPI_File_c2f(MPI_File file);
MPR_API MPI_File PMPI_File_f2c(MPI_Fint file);


#ifdef __cplusplus
}
#endif

#endif /* MPR_MPI_H */
