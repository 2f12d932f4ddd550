// Argument checks every call on a window shares: the window's own calls (win.cc) and the
// one-sided communication and synchronization calls (rma.cc). Same contract as check.h: the
// error is already raised.
#pragma once

#include "runtime/api/check.h"
#include "runtime/rma/win.h"

namespace mpr::runtime::api {

inline int check_win(const char* fn, MPI_Win h, rma::Win** out) {
  *out = rma::to_win(h);
  if (*out) return MPI_SUCCESS;
  if (h == MPI_WIN_NULL)
    return raise_error(nullptr, MPI_ERR_WIN, fn, "invalid window MPI_WIN_NULL");
  return raise_error(nullptr, MPI_ERR_WIN, fn, "invalid window handle %p", static_cast<void*>(h));
}

// Entry checks of every call on a window.
inline int enter(const char* fn, MPI_Win h, rma::Win** w) {
  MPR_TRY(check_running(fn));
  return check_win(fn, h, w);
}

}  // namespace mpr::runtime::api
