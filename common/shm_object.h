// Job-owned POSIX shared-memory objects (/dev/shm): the one naming scheme, creation, mapping
// and removal. Every object a job creates is named "/mpr.<sanitized job id>.<kind><16 hex>"
// (kind "" for the shm backend's segment, "win." for an RMA window), so the launcher can
// remove what ranks that died left behind by the job prefix alone.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mpr::common {

/// The job id reduced to [A-Za-z0-9_-] (others become '_') and cut to 200 characters, so a
/// whole name fits NAME_MAX (255).
std::string sanitize_job_id(std::string_view job_id);

/// "mpr.<sanitized job id>.": the start of every /dev/shm entry of the job (no leading '/').
std::string shm_job_prefix(std::string_view job_id);

/// True if `entry` (a file name in /dev/shm, without '/') belongs to job `job_id`.
bool shm_entry_of_job(std::string_view entry, std::string_view job_id);

/// Unlinks every /dev/shm entry of `job_id` (best effort); returns how many it removed.
/// `with_spawned`: also those of the jobs it spawned, whose ids are "<job_id>.<n>" (their
/// entries start "mpr.<sanitized job id>_"; a launcher's job ids end in digits, so no other
/// job's do). `dir` is for tests.
int remove_job_shm_objects(std::string_view job_id, const char* dir = "/dev/shm",
                           bool with_spawned = false);

/// A mapping of a shared-memory object. Move-only; the destructor unmaps (never unlinks: the
/// creator decides when the name goes, usually once every process has it mapped).
class ShmObject {
 public:
  ShmObject() = default;
  ~ShmObject() { unmap(); }
  ShmObject(ShmObject&& o) noexcept;
  ShmObject& operator=(ShmObject&& o) noexcept;
  ShmObject(const ShmObject&) = delete;
  ShmObject& operator=(const ShmObject&) = delete;

  /// Creates "/" + shm_job_prefix(job_id) + kind + 16 random hex digits with O_EXCL and mode
  /// 0600 (another name on a collision), sizes it to `bytes`, reserves its pages (so a full
  /// /dev/shm fails here, not as SIGBUS at some later first touch) and maps it read-write.
  /// The pages are zero. On failure nothing is left behind and std::runtime_error names the
  /// call, the object and the cause.
  static ShmObject create(std::string_view job_id, std::string_view kind, size_t bytes);

  /// Maps the existing object `name` read-write: its first `bytes`, or all of it if 0.
  /// Throws std::runtime_error naming the call and the cause.
  static ShmObject attach(const std::string& name, size_t bytes = 0);

  /// Removes the name (the mapping stays). Returns false if it was already gone.
  bool unlink() const;
  /// Unmaps. Idempotent.
  void unmap();
  /// Gives up the mapping: the caller munmap()s base() for bytes() itself.
  void* release();

  void* base() const { return base_; }
  size_t bytes() const { return bytes_; }
  const std::string& name() const { return name_; }

 private:
  void* base_ = nullptr;
  size_t bytes_ = 0;
  std::string name_;
};

}  // namespace mpr::common
