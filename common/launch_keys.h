// What mprun tells its ranks through PMIx beyond the standard keys, and what a rank tells it
// back. Shared by launcher/ (the server side) and runtime/ (the client side); plain constants,
// so common/ stays free of a PMIx dependency.
#pragma once

namespace mpr::common {

/// Job-level bool: more ranks on this node than hardware threads they may use, so a blocking
/// wait should yield the CPU at once instead of spinning.
inline constexpr char kKeyOversubscribed[] = "mpr.oversubscribed";

/// Job-level bool, set by mprun: the launcher watches startup and wants kEventStartupFence from
/// each rank when it enters its first fence. Other PMIx servers do not set it, so their ranks
/// send nothing unexpected.
inline constexpr char kKeyStartupWatch[] = "mpr.startup_watch";

/// PMIx event code a rank raises (range PMIX_RANGE_RM) right before its first PMIx_Fence, so
/// the launcher can name the ranks that never got there. Below PMIX_EXTERNAL_ERR_BASE (-3000),
/// the range PMIx leaves to its users.
inline constexpr int kEventStartupFence = -3101;

/// App-level string of a PMIx_Spawn request: directories to look for the program in (MPI's
/// info key "path"), colon-separated, before the launcher's PATH.
inline constexpr char kKeySpawnPath[] = "mpr.spawn_path";

}  // namespace mpr::common
