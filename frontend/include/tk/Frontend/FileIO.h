// Reading and writing files safely, for every caller of the compiler and the runtime (sources,
// .npy files, cache entries, the tuning database, -o and --save outputs, TK_DUMP_DIR):
// - reads take regular files only (never a FIFO, a device or a directory: a FIFO is opened
//   without blocking and refused) and refuse a file larger than the caller's limit before
//   reading any of it;
// - writes go to a temporary file created O_CREAT|O_EXCL (never through a planted symlink) with
//   a random name in the target's directory, then are renamed over the target, so no reader
//   sees a half-written file; the temporary file is removed on failure, on destruction and on
//   a fatal signal (SIGINT included).
// Errors carry the OS's reason ("cannot write 'x': No space left on device").
#ifndef TK_FRONTEND_FILEIO_H
#define TK_FRONTEND_FILEIO_H

#include <cstdint>
#include <memory>
#include <string>

namespace tk {

/// How a file is trusted and written. Output: what the user names (-o, --save, TK_DUMP_DIR):
/// created 0666 before the umask; an existing character device or pipe (/dev/null,
/// /dev/stdout) is written in place. Private: the disk cache's own files: read only when a
/// regular file (not a symlink) owned by this user and writable by no one else; created 0600 in
/// directories created 0700, never written in place.
enum class FileKind { Output, Private };

/// A regular file open for reading (closed with the object).
class RegularFile {
public:
  /// Opens `path`; null with `error` when it cannot be opened or is not a regular file (or,
  /// for FileKind::Private, is not this user's private file). `missing` is set when it does
  /// not exist.
  static std::unique_ptr<RegularFile> open(const std::string &path, std::string &error,
                                           FileKind kind = FileKind::Output, bool *missing = nullptr);
  ~RegularFile();
  RegularFile(const RegularFile &) = delete;
  RegularFile &operator=(const RegularFile &) = delete;

  uint64_t size() const { return size_; }
  /// Reads exactly `count` bytes at `offset` into `out`; false with `error` otherwise.
  bool read(uint64_t offset, uint64_t count, std::string &out, std::string &error) const;
  /// Reads the whole file, at most `maxBytes` (checked against size() by the caller): a file
  /// that says it has 0 bytes is read to its end, as a pseudo-file (/proc's) has more.
  bool readAll(uint64_t maxBytes, std::string &out, std::string &error) const;

private:
  RegularFile(std::string path, int fd, uint64_t size) : path_(std::move(path)), fd_(fd), size_(size) {}
  std::string path_;
  int fd_;
  uint64_t size_;
};

/// The whole of a regular file of at most `maxBytes` bytes into `text`; false with `error`
/// ("cannot read 'x': not a regular file", "... is 3221225472 bytes, more than the limit of
/// 268435456") otherwise.
bool readRegularFile(const std::string &path, uint64_t maxBytes, std::string &text, std::string &error,
                     FileKind kind = FileKind::Output, bool *missing = nullptr);

/// A file written through a temporary file beside it and a rename (see the top of the file).
/// An Output target that exists and is a character device or a pipe (/dev/null, /dev/stdout)
/// is written in place instead, unless it is reached through a symlink owned by another user
/// (neither this one nor root): such a link is never followed, the rename replaces it.
class AtomicFile {
public:
  /// Creates the temporary file (and the target's directory). Null with `error`.
  static std::unique_ptr<AtomicFile> create(const std::string &path, FileKind kind, std::string &error);
  /// Discards the temporary file unless committed.
  ~AtomicFile();
  AtomicFile(const AtomicFile &) = delete;
  AtomicFile &operator=(const AtomicFile &) = delete;

  bool write(const std::string &bytes, std::string &error);
  /// Renames the temporary file over the target (with `replace` false, gives it the target's
  /// name only when no file has it yet: an existing one is kept and counts as success).
  bool commit(std::string &error, bool replace = true);
  const std::string &path() const { return path_; }

private:
  AtomicFile() = default;
  void discard();
  std::string path_, temporary_; // temporary_ empty: written in place
  int fd_ = -1;
  bool done_ = false;
};

/// Writes `bytes` to `path` through an AtomicFile. False with `error` (naming the file and
/// the OS's reason) otherwise.
bool writeAtomically(const std::string &path, const std::string &bytes, std::string &error,
                     FileKind kind = FileKind::Output);

/// "cannot write 'PATH': REASON" and the like: `what` and the path, with strerror(errnum).
std::string ioError(const std::string &what, const std::string &path, int errnum);

} // namespace tk

#endif
