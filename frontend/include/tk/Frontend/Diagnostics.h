// Source files and the diagnostics engine: `file:line:col: error: message`, the source line,
// a caret under the range, and notes pointing at related places.
#ifndef TK_FRONTEND_DIAGNOSTICS_H
#define TK_FRONTEND_DIAGNOSTICS_H

#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace tk {

/// A position in a source file; line and column count from 1. fileId 0 means "no location".
struct SrcLoc {
  uint32_t fileId = 0;
  uint32_t line = 0;
  uint32_t col = 0;
  bool valid() const { return fileId != 0; }
};

/// A range on one line or across lines; `end` is one past the last character.
struct SrcRange {
  SrcLoc begin;
  SrcLoc end;
};

class SourceManager {
public:
  /// Adds a file's text; returns its id (never 0).
  uint32_t addFile(std::string path, std::string text);
  const std::string &path(uint32_t fileId) const { return files_[fileId - 1].path; }
  const std::string &text(uint32_t fileId) const { return files_[fileId - 1].text; }
  /// The text of one line without its newline, or "" when out of range.
  std::string lineText(uint32_t fileId, uint32_t line) const;
  size_t fileCount() const { return files_.size(); }

private:
  struct File {
    std::string path;
    std::string text;
    std::vector<size_t> lineStarts;
  };
  std::vector<File> files_;
};

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity;
  SrcRange range;
  std::string message;
  std::vector<Diagnostic> notes;
};

class DiagEngine {
public:
  explicit DiagEngine(const SourceManager &sources) : sources_(sources) {}

  /// Reports an error; returns a handle for attaching notes.
  Diagnostic &error(SrcRange range, std::string message);
  Diagnostic &warning(SrcRange range, std::string message);
  static void note(Diagnostic &diag, SrcRange range, std::string message);
  /// Removes and returns the diagnostics from index `first` of diagnostics() on (errors past
  /// kMaxErrors, counted but not kept, stay counted).
  std::vector<Diagnostic> takeSince(size_t first);

  size_t errorCount() const { return errorCount_; }
  bool hasErrors() const { return errorCount_ > 0; }
  /// Beyond this many errors the rest are counted but not kept, so that garbage input ends fast.
  bool tooManyErrors() const { return errorCount_ >= kMaxErrors; }
  const std::vector<Diagnostic> &diagnostics() const { return diags_; }

  /// Prints every diagnostic in the order reported, with source lines and carets.
  void print(std::ostream &os) const;
  /// One diagnostic in the same format (used by print and by tests).
  std::string format(const Diagnostic &diag) const;

  static constexpr size_t kMaxErrors = 50;
  /// What a diagnostic with no place in the source starts with, as a command line's own errors
  /// do ("tkc: "); none by default (a library's).
  void setUnlocatedPrefix(std::string prefix) { unlocatedPrefix_ = std::move(prefix); }

private:
  /// A report's identity: the same one again (each @autotune config instantiates the kernel)
  /// is kept once.
  using Key = std::tuple<int, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, std::string>;
  static Key keyOf(Severity severity, SrcRange range, const std::string &message);
  /// A scratch diagnostic for a report identical to a kept one (dropped), or null.
  Diagnostic *repeated(Severity severity, SrcRange range, const std::string &message);
  void formatOne(std::string &out, const Diagnostic &diag) const;
  const SourceManager &sources_;
  std::vector<Diagnostic> diags_;
  std::set<Key> kept_; // the keys of diags_ (a set: a file's many warnings are no quadratic scan)
  Diagnostic dropped_;
  size_t errorCount_ = 0;
  std::string unlocatedPrefix_;
};

} // namespace tk

#endif
