#include "tk/Frontend/Diagnostics.h"

#include <algorithm>

namespace tk {

uint32_t SourceManager::addFile(std::string path, std::string text) {
  File file{std::move(path), std::move(text), {0}};
  for (size_t i = 0; i < file.text.size(); ++i)
    if (file.text[i] == '\n')
      file.lineStarts.push_back(i + 1);
  files_.push_back(std::move(file));
  return files_.size();
}

std::string SourceManager::lineText(uint32_t fileId, uint32_t line) const {
  if (fileId == 0 || fileId > files_.size())
    return "";
  const File &file = files_[fileId - 1];
  if (line == 0 || line > file.lineStarts.size())
    return "";
  size_t begin = file.lineStarts[line - 1];
  size_t end = file.text.find('\n', begin);
  if (end == std::string::npos)
    end = file.text.size();
  std::string text = file.text.substr(begin, end - begin);
  if (!text.empty() && text.back() == '\r')
    text.pop_back();
  return text;
}

DiagEngine::Key DiagEngine::keyOf(Severity severity, SrcRange range, const std::string &message) {
  return {int(severity), range.begin.fileId, range.begin.line, range.begin.col, range.end.fileId, range.end.line,
          range.end.col, message};
}

Diagnostic *DiagEngine::repeated(Severity severity, SrcRange range, const std::string &message) {
  if (!kept_.count(keyOf(severity, range, message)))
    return nullptr;
  dropped_ = Diagnostic{severity, range, message, {}};
  return &dropped_;
}

Diagnostic &DiagEngine::error(SrcRange range, std::string message) {
  // The same error at the same place once (each @autotune config instantiates the kernel).
  if (Diagnostic *again = repeated(Severity::Error, range, message))
    return *again;
  ++errorCount_;
  if (errorCount_ > kMaxErrors) {
    dropped_ = Diagnostic{Severity::Error, range, std::move(message), {}};
    return dropped_;
  }
  kept_.insert(keyOf(Severity::Error, range, message));
  diags_.push_back(Diagnostic{Severity::Error, range, std::move(message), {}});
  return diags_.back();
}

Diagnostic &DiagEngine::warning(SrcRange range, std::string message) {
  if (Diagnostic *again = repeated(Severity::Warning, range, message))
    return *again;
  kept_.insert(keyOf(Severity::Warning, range, message));
  diags_.push_back(Diagnostic{Severity::Warning, range, std::move(message), {}});
  return diags_.back();
}

void DiagEngine::note(Diagnostic &diag, SrcRange range, std::string message) {
  diag.notes.push_back(Diagnostic{Severity::Note, range, std::move(message), {}});
}

std::vector<Diagnostic> DiagEngine::takeSince(size_t first) {
  std::vector<Diagnostic> taken(diags_.begin() + std::min(first, diags_.size()), diags_.end());
  diags_.resize(std::min(first, diags_.size()));
  for (const Diagnostic &d : taken) {
    errorCount_ -= d.severity == Severity::Error;
    kept_.erase(keyOf(d.severity, d.range, d.message));
  }
  return taken;
}

namespace {
const char *severityName(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  }
  return "error";
}

/// Control characters and invalid bytes would garble a terminal: show them as spaces.
std::string printable(const std::string &line) {
  std::string out = line;
  for (char &c : out)
    if ((unsigned char)c < 0x20 && c != '\t')
      c = ' ';
  return out;
}
} // namespace

void DiagEngine::formatOne(std::string &out, const Diagnostic &diag) const {
  const SrcLoc &loc = diag.range.begin;
  if (loc.valid())
    out += sources_.path(loc.fileId) + ":" + std::to_string(loc.line) + ":" +
           std::to_string(loc.col) + ": ";
  else if (diag.severity != Severity::Note)
    out += unlocatedPrefix_;
  out += severityName(diag.severity);
  out += ": " + diag.message + "\n";
  if (!loc.valid())
    return;
  std::string line = sources_.lineText(loc.fileId, loc.line);
  if (line.size() > 400)
    line = line.substr(0, 400) + " ...";
  out += printable(line) + "\n";
  std::string marker;
  for (uint32_t i = 1; i < loc.col && i - 1 < line.size(); ++i)
    marker += line[i - 1] == '\t' ? '\t' : ' ';
  marker += '^';
  const SrcLoc &end = diag.range.end;
  if (end.valid() && end.line == loc.line && end.col > loc.col + 1)
    marker += std::string(std::min<uint32_t>(end.col - loc.col - 1, 400), '~');
  out += marker + "\n";
}

std::string DiagEngine::format(const Diagnostic &diag) const {
  std::string out;
  formatOne(out, diag);
  for (const Diagnostic &note : diag.notes)
    formatOne(out, note);
  return out;
}

void DiagEngine::print(std::ostream &os) const {
  for (const Diagnostic &diag : diags_)
    os << format(diag);
  if (errorCount_ > kMaxErrors)
    os << "error: too many errors (" << errorCount_ << "), stopped listing them after "
       << kMaxErrors << "\n";
}

} // namespace tk
