#include "tk/Frontend/FileIO.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Signals.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tk {

std::string ioError(const std::string &what, const std::string &path, int errnum) {
  return what + " '" + path + "': " + std::strerror(errnum);
}

std::unique_ptr<RegularFile> RegularFile::open(const std::string &path, std::string &error, FileKind kind,
                                               bool *missing) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused just below).
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (kind == FileKind::Private ? O_NOFOLLOW : 0);
  int fd = ::open(path.c_str(), flags);
  if (missing)
    *missing = fd < 0 && errno == ENOENT;
  if (fd < 0) {
    error = errno == ELOOP && kind == FileKind::Private ? "cannot read '" + path + "': it is a symlink"
                                                         : ioError("cannot read", path, errno);
    return nullptr;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int errnum = errno;
    ::close(fd);
    error = S_ISDIR(st.st_mode) ? "cannot read '" + path + "': it is a directory"
            : st.st_mode        ? "cannot read '" + path + "': it is not a regular file"
                                : ioError("cannot read", path, errnum);
    return nullptr;
  }
  if (kind == FileKind::Private && (st.st_uid != ::geteuid() || (st.st_mode & 022))) {
    ::close(fd);
    error = "cannot read '" + path + "': " +
            (st.st_uid != ::geteuid() ? "it belongs to uid " + std::to_string(st.st_uid) + ", not to this user"
                                      : "others may write it");
    return nullptr;
  }
  if (int now = ::fcntl(fd, F_GETFL); now >= 0)
    ::fcntl(fd, F_SETFL, now & ~O_NONBLOCK);
  return std::unique_ptr<RegularFile>(new RegularFile(path, fd, uint64_t(st.st_size)));
}

RegularFile::~RegularFile() { ::close(fd_); }

bool RegularFile::read(uint64_t offset, uint64_t count, std::string &out, std::string &error) const {
  if (offset > size_ || count > size_ - offset) {
    error = "cannot read '" + path_ + "': " + std::to_string(count) + " bytes at offset " + std::to_string(offset) +
            " are past its end (" + std::to_string(size_) + " bytes)";
    return false;
  }
  out.resize(count);
  uint64_t done = 0;
  while (done < count) {
    ssize_t got = ::pread(fd_, out.data() + done, count - done, off_t(offset + done));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      error = got < 0 ? ioError("cannot read", path_, errno) : "cannot read '" + path_ + "': it shrank while being read";
      return false;
    }
    done += uint64_t(got);
  }
  return true;
}

bool RegularFile::readAll(uint64_t maxBytes, std::string &out, std::string &error) const {
  if (size_ != 0)
    return read(0, size_, out, error);
  // Without waiting: a pseudo-file may be a stream with no end (/proc/kmsg waits for the next
  // kernel message), which would hang the reader.
  if (int flags = ::fcntl(fd_, F_GETFL); flags >= 0)
    ::fcntl(fd_, F_SETFL, flags | O_NONBLOCK);
  out.clear();
  char chunk[1 << 14];
  for (off_t offset = 0;;) {
    ssize_t got = ::pread(fd_, chunk, sizeof chunk, offset);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      error = "cannot read '" + path_ + "': it is a stream with no end to read to";
      return false;
    }
    if (got < 0) {
      error = ioError("cannot read", path_, errno);
      return false;
    }
    if (got == 0)
      return true;
    if (out.size() + uint64_t(got) > maxBytes) {
      error = "cannot read '" + path_ + "': it is more than the limit of " + std::to_string(maxBytes) + " bytes";
      return false;
    }
    out.append(chunk, size_t(got));
    offset += got;
  }
}

bool readRegularFile(const std::string &path, uint64_t maxBytes, std::string &text, std::string &error, FileKind kind,
                     bool *missing) {
  std::unique_ptr<RegularFile> file = RegularFile::open(path, error, kind, missing);
  if (!file)
    return false;
  if (file->size() > maxBytes) {
    error = "cannot read '" + path + "': it is " + std::to_string(file->size()) + " bytes, more than the limit of " +
            std::to_string(maxBytes);
    return false;
  }
  return file->readAll(maxBytes, text, error);
}

std::unique_ptr<AtomicFile> AtomicFile::create(const std::string &path, FileKind kind, std::string &error) {
  std::unique_ptr<AtomicFile> file(new AtomicFile());
  file->path_ = path;
  struct stat st {};
  if (kind == FileKind::Output && ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    struct stat link {};
    bool foreignLink = ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode) && link.st_uid != 0 &&
                       link.st_uid != ::geteuid();
    if (S_ISDIR(st.st_mode) && !foreignLink) {
      error = "cannot write '" + path + "': it is a directory";
      return nullptr;
    }
    if ((S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) && !foreignLink) {
      // A device or a pipe (/dev/null, /dev/stdout) is written as it is: a rename would replace it.
      file->fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (file->fd_ < 0) {
        error = ioError("cannot write", path, errno);
        return nullptr;
      }
      return file;
    }
  }
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  namespace fs = llvm::sys::fs;
  // An output goes into a folder that exists (as a C compiler's -o: a mistyped path is an
  // error, not a new tree); the cache makes its own folders.
  if (kind == FileKind::Output && !fs::is_directory(dir)) {
    error = "cannot write '" + path + "': the folder '" + dir + "' does not exist";
    return nullptr;
  }
  if (std::error_code ec = fs::create_directories(dir, true, kind == FileKind::Private ? fs::owner_all : fs::all_all)) {
    error = "cannot create the directory " + dir + ": " + ec.message();
    return nullptr;
  }
  // O_CREAT|O_EXCL under a random name: an existing file or symlink of that name is never
  // opened, so nothing planted in a shared directory is followed or overwritten. An output's
  // name is registered for removal on SIGINT/SIGTERM with the signals held back from creation
  // to registration: one arriving in between would otherwise leave the file behind.
  sigset_t interrupts, previous;
  sigemptyset(&interrupts);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT})
    sigaddset(&interrupts, s);
  if (kind == FileKind::Output)
    pthread_sigmask(SIG_BLOCK, &interrupts, &previous);
  auto restoreSignals = [&] {
    if (kind == FileKind::Output)
      pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  };
  llvm::SmallString<256> temporary;
  std::error_code ec = llvm::sys::fs::createUniqueFile(dir + "/." + name + ".tmp-%%%%%%%%%%%%", file->fd_, temporary,
                                                       llvm::sys::fs::OF_None,
                                                       kind == FileKind::Private ? 0600 : 0666);
  if (ec) {
    restoreSignals();
    error = "cannot write '" + path + "': cannot create a temporary file in " + dir + ": " + ec.message();
    return nullptr;
  }
  file->temporary_ = std::string(temporary);
  // Outputs (tkc's -o, --save) are removed on SIGINT/SIGTERM through LLVM's handlers. Private
  // files (the JIT's cache) are not: installing process-wide signal handlers from a library
  // would take SIGUSR1 and others from the program that embeds it; a stray cache temporary has
  // a random name and is never read.
  if (kind == FileKind::Output)
    llvm::sys::RemoveFileOnSignal(file->temporary_);
  restoreSignals(); // a signal held back arrives now, and the handler removes the file
  return file;
}

AtomicFile::~AtomicFile() {
  if (!done_)
    discard();
}

void AtomicFile::discard() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
  if (!temporary_.empty()) {
    ::unlink(temporary_.c_str());
    llvm::sys::DontRemoveFileOnSignal(temporary_);
  }
  done_ = true;
}

bool AtomicFile::write(const std::string &bytes, std::string &error) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t wrote = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (wrote < 0 && errno == EINTR)
      continue;
    if (wrote <= 0) {
      error = ioError("cannot write", path_, wrote < 0 ? errno : ENOSPC);
      return false;
    }
    done += size_t(wrote);
  }
  return true;
}

bool AtomicFile::commit(std::string &error, bool replace) {
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) { // NFS and full disks may report a failed write only here
    error = ioError("cannot write", path_, errno);
    discard();
    return false;
  }
  if (temporary_.empty()) {
    done_ = true;
    return true;
  }
  int status = replace ? ::rename(temporary_.c_str(), path_.c_str()) : ::link(temporary_.c_str(), path_.c_str());
  if (status != 0 && !(!replace && errno == EEXIST)) {
    error = ioError("cannot rename a temporary file to", path_, errno);
    discard();
    return false;
  }
  if (!replace)
    ::unlink(temporary_.c_str());
  llvm::sys::DontRemoveFileOnSignal(temporary_);
  done_ = true;
  return true;
}

bool writeAtomically(const std::string &path, const std::string &bytes, std::string &error, FileKind kind) {
  std::unique_ptr<AtomicFile> file = AtomicFile::create(path, kind, error);
  return file && file->write(bytes, error) && file->commit(error);
}

} // namespace tk
