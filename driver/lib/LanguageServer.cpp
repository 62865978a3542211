// The language server behind `tkc lsp`. Each open document is checked as `tkc check` checks a
// file (every kernel, with its first @autotune config) whenever it opens or changes; its
// diagnostics are published per file (an error inside an import goes to that file), and the
// checker's SymbolIndex answers hover and go-to-definition until the next change.
#include "tk/Driver/LanguageServer.h"

#include "tk/Frontend/Builtins.h"
#include "tk/Frontend/SymbolIndex.h"
#include "tk/Support/JsonText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <set>

#define DEBUG_TYPE "tk-lsp"

namespace tk {
namespace {

namespace json = llvm::json;

// JSON-RPC's and the protocol's error codes.
constexpr int kParseError = -32700, kInvalidRequest = -32600, kMethodNotFound = -32601,
              kInvalidParams = -32602, kInternalError = -32603, kServerNotInitialized = -32002;

/// The error of a request the server cannot answer, with the code it is answered with.
struct RequestError {
  int code;
  std::string message;
};

//===----------------------------------------------------------------------===//
// Framing: `Content-Length: N\r\n\r\n` then N bytes of JSON.
//===----------------------------------------------------------------------===//

enum class ReadResult { Message, End, Malformed };

ReadResult readMessage(std::istream &in, std::string &body, std::string &error) {
  std::optional<size_t> length;
  size_t headerBytes = 0;
  for (std::string line;;) {
    line.clear();
    int c;
    while ((c = in.get()) != EOF && c != '\n') {
      line += char(c);
      if (++headerBytes > LanguageServerLimits::kMaxHeaderBytes) {
        error = "message headers longer than " + std::to_string(LanguageServerLimits::kMaxHeaderBytes) + " bytes";
        return ReadResult::Malformed;
      }
    }
    if (c == EOF)
      return line.empty() && !length ? ReadResult::End : (error = "the stream ended inside headers", ReadResult::Malformed);
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty())
      break;
    llvm::StringRef header(line);
    auto [name, value] = header.split(':');
    if (name.trim().equals_insensitive("Content-Length")) {
      unsigned long long n;
      if (llvm::getAsUnsignedInteger(value.trim(), 10, n) || n > LanguageServerLimits::kMaxMessageBytes) {
        error = "Content-Length '" + value.trim().str() + "' is not a length up to " +
                std::to_string(LanguageServerLimits::kMaxMessageBytes) + " bytes";
        return ReadResult::Malformed;
      }
      length = size_t(n);
    }
  }
  if (!length) {
    error = "a message without Content-Length";
    return ReadResult::Malformed;
  }
  body.assign(*length, '\0');
  if (!in.read(body.data(), std::streamsize(*length))) {
    error = "the stream ended inside a message";
    return ReadResult::Malformed;
  }
  return ReadResult::Message;
}

void writeMessage(std::ostream &out, const json::Value &message) {
  std::string body;
  llvm::raw_string_ostream os(body);
  os << message;
  os.flush();
  out << "Content-Length: " << body.size() << "\r\n\r\n" << body;
  out.flush();
}

//===----------------------------------------------------------------------===//
// URIs and positions
//===----------------------------------------------------------------------===//

/// The path of a `file://` URI (percent-decoded); another scheme (`untitled:`) is kept whole
/// as the document's name (its imports come from the stdlib only: CompileOptions::mainHasFolder).
std::string pathFromUri(llvm::StringRef uri) {
  if (!uri.consume_front("file://"))
    return uri.str();
  uri.consume_front("localhost");
  std::string path;
  for (size_t i = 0; i < uri.size(); ++i) {
    unsigned value;
    if (uri[i] == '%' && i + 2 < uri.size() && !uri.substr(i + 1, 2).getAsInteger(16, value)) {
      path += char(value);
      i += 2;
    } else {
      path += uri[i];
    }
  }
  return path;
}

std::string uriFromPath(llvm::StringRef path) {
  if (!path.starts_with("/")) // a name that came from a URI of another scheme
    return path.str();
  std::string uri = "file://";
  for (unsigned char c : path) {
    if (llvm::isAlnum(c) || llvm::StringRef("-._~/").contains(char(c)))
      uri += char(c);
    else
      uri += "%" + llvm::utohexstr(c, /*LowerCase=*/false, /*Width=*/2);
  }
  return uri;
}

// The checker's columns count code points (ANTLR reads UTF-32), the protocol's default position
// encoding counts UTF-16 units: a code point above U+FFFF (a 4-byte UTF-8 sequence) is two.

/// The UTF-16 units of the first `codePoints` code points of a UTF-8 line.
unsigned utf16Units(llvm::StringRef line, size_t codePoints) {
  unsigned units = 0;
  size_t seen = 0;
  for (unsigned char c : line) {
    if ((c & 0xC0) == 0x80) // a continuation byte
      continue;
    if (seen++ == codePoints)
      break;
    units += c >= 0xF0 ? 2 : 1;
  }
  return units + unsigned(codePoints > seen ? codePoints - seen : 0);
}

/// The code points of a UTF-8 line that the first `units` UTF-16 units cover.
size_t codePointsOfUnits(llvm::StringRef line, unsigned units) {
  size_t codePoints = 0;
  unsigned seen = 0;
  for (unsigned char c : line) {
    if ((c & 0xC0) == 0x80)
      continue;
    if (seen >= units)
      return codePoints;
    seen += c >= 0xF0 ? 2 : 1;
    ++codePoints;
  }
  return codePoints + (units > seen ? units - seen : 0);
}

/// Line 1 without its byte-order mark, which the client counts (one UTF-16 unit) and the
/// checker does not; `bomUnits` gets 1 when there was one.
llvm::StringRef withoutBom(llvm::StringRef line, uint32_t lineNo, unsigned &bomUnits) {
  bomUnits = lineNo == 1 && line.starts_with("\xEF\xBB\xBF") ? 1 : 0;
  return bomUnits ? line.drop_front(3) : line;
}

//===----------------------------------------------------------------------===//
// Documents
//===----------------------------------------------------------------------===//

/// One open document and what its last check found.
struct Document {
  std::string uri; // as the client spelled it: answers use it
  std::string path;
  std::string text;
  std::unique_ptr<Compiler> compiler;
  SymbolIndex index;
  uint32_t fileId = 0; // in compiler's sources; 0 when it did not load
  std::optional<int64_t> version; // the client's, published with the diagnostics of this text
  std::set<std::string> publishedTo; // URIs whose diagnostics came from this document
  size_t keptNodes = 0; // what its kept check holds (Compiler::checkedNodes); 0 once dropped
  uint64_t lastUse = 0; // when it was last checked or asked about (Server::clock_)
};

class Server {
public:
  Server(std::ostream &out, const CompileOptions &options) : out_(out), options_(options) {
    options_.kernel.clear();
    options_.ignoreUnknownDefines = true; // -D serve every document; each has its own kernels
  }

  /// Handles one message; false once `exit` came.
  bool handle(const json::Value &message);
  int exitCode() const { return shutdown_ ? 0 : 1; }
  void replyError(const json::Value &id, int code, const std::string &message) {
    writeMessage(out_, json::Object{{"jsonrpc", "2.0"},
                                    {"id", id},
                                    {"error", json::Object{{"code", code}, {"message", message}}}});
  }

private:
  json::Value request(llvm::StringRef method, const json::Object *params);
  void notification(llvm::StringRef method, const json::Object *params);
  void open(const std::string &uri, std::string text, std::optional<int64_t> version);
  void close(const std::string &uri);
  void check(Document &doc);
  /// Drops the least recently used other documents' checks while the kept ones hold more than
  /// LanguageServerLimits::kMaxKeptCheckedNodes (a dropped one is checked again when asked about).
  void keepWithinLimit(const Document &current);
  void publish(Document &doc);
  json::Value hover(const json::Object *params);
  json::Value definition(const json::Object *params);
  /// The document and the checker's location of a request's textDocument and position.
  std::pair<Document *, SrcLoc> locate(const json::Object *params);
  json::Value range(const Compiler &compiler, SrcRange range) const;
  /// The URI of a file: an open document's as its client spelled it, else made from the path.
  std::string uriOf(const std::string &path) const;
  void showMessage(const std::string &message);
  void sendDiagnostics(const std::string &uri, json::Array diagnostics, std::optional<int64_t> version = {});
  /// Records what `importer` found in the closed file `uri` (nothing: forgets it) and publishes
  /// the union of every importer's.
  void publishImport(const std::string &uri, const std::string &importer, json::Array found, bool send = true);

  std::ostream &out_;
  CompileOptions options_;
  std::map<std::string, std::unique_ptr<Document>> documents_; // by URI
  /// The diagnostics each open document's check found in files not open themselves, by that
  /// file's URI and then the document's: a file imported by several shows them all.
  std::map<std::string, std::map<std::string, json::Array>> importDiagnostics_;
  size_t openBytes_ = 0;
  size_t keptNodes_ = 0; // the open documents' keptNodes together
  uint64_t clock_ = 0;
  bool initialized_ = false, shutdown_ = false;
};

std::string Server::uriOf(const std::string &path) const {
  for (const auto &[uri, doc] : documents_)
    if (doc->path == path)
      return uri;
  return uriFromPath(path);
}

void Server::sendDiagnostics(const std::string &uri, json::Array diagnostics, std::optional<int64_t> version) {
  json::Object params{{"uri", uri}, {"diagnostics", std::move(diagnostics)}};
  if (version) // the text these diagnostics are of: a client may drop ones of an older text
    params["version"] = *version;
  writeMessage(out_, json::Object{{"jsonrpc", "2.0"}, {"method", "textDocument/publishDiagnostics"},
                                  {"params", std::move(params)}});
}

void Server::publishImport(const std::string &uri, const std::string &importer, json::Array found, bool send) {
  std::map<std::string, json::Array> &byImporter = importDiagnostics_[uri];
  if (found.empty())
    byImporter.erase(importer);
  else
    byImporter[importer] = std::move(found);
  json::Array all;
  for (auto &[from, list] : byImporter)
    for (const json::Value &d : list)
      all.push_back(d);
  if (byImporter.empty())
    importDiagnostics_.erase(uri);
  if (send)
    sendDiagnostics(uri, std::move(all));
}

void Server::showMessage(const std::string &message) {
  writeMessage(out_, json::Object{{"jsonrpc", "2.0"},
                                  {"method", "window/showMessage"},
                                  {"params", json::Object{{"type", 1}, {"message", "tkc lsp: " + message}}}});
}

const json::Object *objectAt(const json::Object *object, llvm::StringRef key) {
  return object ? object->getObject(key) : nullptr;
}

std::string stringAt(const json::Object *object, llvm::StringRef key) {
  if (object)
    if (auto s = object->getString(key))
      return s->str();
  return "";
}

json::Value Server::range(const Compiler &compiler, SrcRange r) const {
  const SourceManager &sources = compiler.sourceManager();
  auto position = [&](SrcLoc loc) -> json::Value {
    if (!loc.valid() || loc.line == 0)
      return json::Object{{"line", 0}, {"character", 0}};
    std::string line = sources.lineText(loc.fileId, loc.line);
    unsigned bom;
    llvm::StringRef text = withoutBom(line, loc.line, bom);
    return json::Object{{"line", loc.line - 1}, {"character", bom + utf16Units(text, loc.col - 1)}};
  };
  SrcLoc end = r.end.valid() ? r.end : r.begin;
  return json::Object{{"start", position(r.begin)}, {"end", position(end)}};
}

void Server::check(Document &doc) {
  doc.index = SymbolIndex();
  CompileOptions options = options_;
  options.mainHasFolder = llvm::StringRef(doc.uri).starts_with("file://"); // `untitled:` is in none
  doc.compiler = std::make_unique<Compiler>(options);
  doc.compiler->setIndex(&doc.index);
  doc.fileId = 0;
  bool loaded = doc.compiler->load(doc.path, &doc.text);
  const SourceManager &sources = doc.compiler->sourceManager();
  for (uint32_t id = 1; id <= sources.fileCount(); ++id)
    if (sources.path(id) == doc.path) {
      doc.fileId = id;
      break;
    }
  if (loaded)
    doc.compiler->check();
  keptNodes_ -= doc.keptNodes;
  doc.keptNodes = doc.compiler->checkedNodes() + 1;
  keptNodes_ += doc.keptNodes;
  doc.lastUse = ++clock_;
  LLVM_DEBUG(llvm::dbgs() << "tk-lsp: checked " << doc.path << ": "
                          << doc.compiler->diagnostics().diagnostics().size() << " diagnostics, "
                          << doc.keptNodes << " nodes kept\n");
  keepWithinLimit(doc);
}

void Server::keepWithinLimit(const Document &current) {
  while (keptNodes_ > LanguageServerLimits::kMaxKeptCheckedNodes) {
    Document *oldest = nullptr;
    for (auto &[uri, doc] : documents_)
      if (doc.get() != &current && doc->compiler && (!oldest || doc->lastUse < oldest->lastUse))
        oldest = doc.get();
    if (!oldest)
      return; // the current document alone: SemaLimits bound it
    LLVM_DEBUG(llvm::dbgs() << "tk-lsp: dropped the check of " << oldest->path << "\n");
    keptNodes_ -= oldest->keptNodes;
    oldest->keptNodes = 0;
    oldest->compiler.reset();
    oldest->index = SymbolIndex();
    oldest->fileId = 0;
  }
}

void Server::publish(Document &doc) {
  const Compiler &compiler = *doc.compiler;
  const SourceManager &sources = compiler.sourceManager();
  std::map<std::string, json::Array> byUri;
  byUri[doc.uri]; // published even when empty: that clears the editor's old ones
  auto uriOfFile = [&](uint32_t fileId) { return fileId ? uriOf(sources.path(fileId)) : doc.uri; };
  for (const Diagnostic &d : compiler.diagnostics().diagnostics()) {
    json::Array related;
    for (const Diagnostic &note : d.notes)
      related.push_back(json::Object{
          {"location", json::Object{{"uri", uriOfFile(note.range.begin.fileId)}, {"range", range(compiler, note.range)}}},
          {"message", note.message}});
    json::Object diagnostic{{"range", range(compiler, d.range)},
                            {"severity", d.severity == Severity::Error ? 1 : d.severity == Severity::Warning ? 2 : 3},
                            {"source", "tkc"},
                            {"message", d.message}};
    if (!related.empty())
      diagnostic["relatedInformation"] = std::move(related);
    byUri[uriOfFile(d.range.begin.fileId)].push_back(std::move(diagnostic));
  }
  for (const std::string &uri : doc.publishedTo) // imports that had diagnostics of this document's
    byUri[uri];
  doc.publishedTo.clear();
  for (auto &[uri, diagnostics] : byUri) {
    if (uri == doc.uri) {
      sendDiagnostics(uri, std::move(diagnostics), doc.version);
      continue;
    }
    // An import: an open one's own check owns its diagnostics (it sees its unsaved text); a
    // closed one shows what every open importer found in it. The record is kept either way, so
    // that closing the import shows what its importers find now, not what they found before.
    if (!diagnostics.empty())
      doc.publishedTo.insert(uri);
    publishImport(uri, doc.uri, std::move(diagnostics), /*send=*/!documents_.count(uri));
  }
}

void Server::open(const std::string &uri, std::string text, std::optional<int64_t> version) {
  // A lone CR ends a line for the client (the protocol's rule) as LF does for the checker:
  // the same number of characters, so every column stays.
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))
      text[i] = '\n';
  auto found = documents_.find(uri);
  size_t before = found == documents_.end() ? 0 : found->second->text.size();
  if (openBytes_ - before + text.size() > LanguageServerLimits::kMaxOpenBytes) {
    showMessage("open documents would hold more than " + std::to_string(LanguageServerLimits::kMaxOpenBytes >> 20) +
                " MiB; " + uri + " is not checked (close some)");
    return;
  }
  if (found == documents_.end()) {
    if (documents_.size() >= LanguageServerLimits::kMaxOpenDocuments) {
      showMessage("more than " + std::to_string(LanguageServerLimits::kMaxOpenDocuments) + " open documents; " + uri +
                  " is not checked (close some)");
      return;
    }
    found = documents_.emplace(uri, std::make_unique<Document>()).first;
    found->second->uri = uri;
    found->second->path = pathFromUri(uri);
  }
  Document &doc = *found->second;
  openBytes_ = openBytes_ - before + text.size();
  doc.text = std::move(text);
  doc.version = version;
  check(doc);
  publish(doc);
}

void Server::close(const std::string &uri) {
  auto it = documents_.find(uri);
  if (it == documents_.end())
    return;
  Document &doc = *it->second;
  openBytes_ -= doc.text.size();
  keptNodes_ -= doc.keptNodes;
  // Its own diagnostics go (a closed file shows no errors); in its imports, the others' stay.
  doc.publishedTo.insert(uri);
  std::set<std::string> imports = doc.publishedTo;
  documents_.erase(it);
  for (const std::string &target : imports)
    publishImport(target, uri, json::Array{});
}

std::pair<Document *, SrcLoc> Server::locate(const json::Object *params) {
  std::string uri = stringAt(objectAt(params, "textDocument"), "uri");
  const json::Object *position = objectAt(params, "position");
  auto line = position ? position->getInteger("line") : std::nullopt;
  auto character = position ? position->getInteger("character") : std::nullopt;
  if (uri.empty() || !line || !character || *line < 0 || *character < 0)
    throw RequestError{kInvalidParams, "a position request needs textDocument.uri and position {line, character}"};
  auto it = documents_.find(uri);
  if (it == documents_.end())
    return {nullptr, {}};
  Document &doc = *it->second;
  if (!doc.compiler)
    check(doc); // its check was dropped (keepWithinLimit): the same text checks the same
  doc.lastUse = ++clock_;
  if (!doc.fileId)
    return {nullptr, {}};
  if (*line >= int64_t(UINT32_MAX) || *character >= int64_t(UINT32_MAX))
    return {&doc, {}};
  uint32_t lineNo = uint32_t(*line) + 1;
  std::string lineText = doc.compiler->sourceManager().lineText(doc.fileId, lineNo);
  unsigned bom;
  llvm::StringRef text = withoutBom(lineText, lineNo, bom);
  unsigned units = unsigned(*character) >= bom ? unsigned(*character) - bom : 0;
  uint32_t col = uint32_t(std::min<size_t>(codePointsOfUnits(text, units), UINT32_MAX - 1)) + 1;
  return {&doc, SrcLoc{doc.fileId, lineNo, col}};
}

/// The identifier around column `col` (1-based, in code points) of a UTF-8 `line`, or "".
std::string wordAt(llvm::StringRef line, uint32_t col) {
  auto isWord = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  size_t at = 0;
  for (uint32_t seen = 1; at < line.size() && seen < col; ++seen) // to the byte of code point col
    for (++at; at < line.size() && (static_cast<unsigned char>(line[at]) & 0xC0) == 0x80;)
      ++at;
  if (at > line.size())
    return "";
  size_t begin = at, end = at;
  while (begin > 0 && isWord(line[begin - 1]))
    --begin;
  while (end < line.size() && isWord(line[end]))
    ++end;
  return line.slice(begin, end).str();
}

/// The text of `at`'s line as the checker counts its columns (no byte-order mark).
std::string lineAt(const Document &doc, SrcLoc at) {
  unsigned bom;
  return withoutBom(doc.compiler->sourceManager().lineText(at.fileId, at.line), at.line, bom).str();
}

json::Value Server::hover(const json::Object *params) {
  auto [doc, at] = locate(params);
  if (!doc || !at.valid())
    return nullptr;
  std::vector<std::string> texts = doc->index.hoverAt(at);
  if (texts.empty()) // code no kernel instantiates: a builtin is still known by name
    if (const BuiltinInfo *builtin =
            lookupBuiltin(wordAt(lineAt(*doc, at), at.col)))
      texts.push_back("builtin " + builtin->signature());
  if (texts.empty())
    return nullptr;
  std::string value = "```tk\n";
  for (const std::string &text : texts)
    value += text + "\n";
  value += "```";
  return json::Object{{"contents", json::Object{{"kind", "markdown"}, {"value", value}}}};
}

json::Value Server::definition(const json::Object *params) {
  auto [doc, at] = locate(params);
  if (!doc || !at.valid())
    return nullptr;
  std::optional<SrcRange> decl = doc->index.definitionAt(at);
  if (!decl) // a name in code no kernel instantiates: the module's and its imports' items
    decl = doc->compiler->globalDeclaration(
        at.fileId, wordAt(lineAt(*doc, at), at.col));
  if (!decl)
    return nullptr;
  return json::Object{{"uri", uriOf(doc->compiler->sourceManager().path(decl->begin.fileId))},
                      {"range", range(*doc->compiler, *decl)}};
}

json::Value Server::request(llvm::StringRef method, const json::Object *params) {
  if (shutdown_)
    throw RequestError{kInvalidRequest, "the server was shut down: only 'exit' is taken"};
  if (method != "initialize" && !initialized_)
    throw RequestError{kServerNotInitialized, "'initialize' comes first"};
  if (method == "initialize") {
    initialized_ = true;
    return json::Object{
        {"capabilities", json::Object{{"textDocumentSync", json::Object{{"openClose", true}, {"change", 1}}},
                                      {"hoverProvider", true},
                                      {"definitionProvider", true}}},
        {"serverInfo", json::Object{{"name", "tkc"}}}};
  }
  if (method == "shutdown") {
    shutdown_ = true;
    return nullptr;
  }
  if (method == "textDocument/hover")
    return hover(params);
  if (method == "textDocument/definition")
    return definition(params);
  throw RequestError{kMethodNotFound, "tkc lsp does not handle '" + method.str() + "'"};
}

void Server::notification(llvm::StringRef method, const json::Object *params) {
  if (!initialized_ || shutdown_) // before `initialize` and after `shutdown`: dropped
    return;
  const json::Object *document = objectAt(params, "textDocument");
  std::string uri = stringAt(document, "uri");
  if (method == "textDocument/didOpen") {
    if (!uri.empty() && document->getString("text"))
      open(uri, document->getString("text")->str(), document->getInteger("version"));
  } else if (method == "textDocument/didChange") {
    // Full synchronization (the capability sent): the last change holds the whole text.
    const json::Array *changes = params ? params->getArray("contentChanges") : nullptr;
    if (!uri.empty() && documents_.count(uri) && changes && !changes->empty())
      if (const json::Object *last = changes->back().getAsObject())
        if (auto text = last->getString("text"))
          open(uri, text->str(), document->getInteger("version"));
  } else if (method == "textDocument/didClose") {
    close(uri);
  } // `initialized`, `didSave`, `$/` notifications and the rest need nothing
}

bool Server::handle(const json::Value &message) {
  if (message.getAsArray()) { // a batch: not part of the protocol
    replyError(nullptr, kInvalidRequest, "batches of messages are not taken; send them one at a time");
    return true;
  }
  const json::Object *object = message.getAsObject();
  const json::Value *id = object ? object->get("id") : nullptr;
  std::optional<llvm::StringRef> method = object ? object->getString("method") : std::nullopt;
  if (!method) {
    if (!id) // a response to a request of ours (the server sends none) or garbage
      return true;
    replyError(*id, kInvalidRequest, "a request needs a 'method'");
    return true;
  }
  if (*method == "exit")
    return false;
  const json::Object *params = object->getObject("params");
  try {
    if (!id) {
      notification(*method, params);
      return true;
    }
    json::Value result = request(*method, params);
    writeMessage(out_, json::Object{{"jsonrpc", "2.0"}, {"id", *id}, {"result", std::move(result)}});
  } catch (const RequestError &e) {
    if (id)
      replyError(*id, e.code, e.message);
  } catch (const std::exception &e) { // the checker's own errors: the server stays up
    if (id)
      replyError(*id, kInternalError, e.what());
  }
  return true;
}

} // namespace

int languageServer(std::istream &in, std::ostream &out, const CompileOptions &options) {
  Server server(out, options);
  std::string body, error;
  for (;;) {
    ReadResult read = readMessage(in, body, error);
    if (read == ReadResult::End)
      return 1; // the client went away without `exit`
    if (read == ReadResult::Malformed) {
      server.replyError(nullptr, kParseError, error);
      return 1; // the framing is lost: nothing after it can be trusted
    }
    if (jsonNestedTooDeep(body, LanguageServerLimits::kMaxJsonDepth) != std::string::npos) {
      server.replyError(nullptr, kParseError,
                        "JSON nested deeper than " + std::to_string(LanguageServerLimits::kMaxJsonDepth) + " levels");
      continue;
    }
    llvm::Expected<json::Value> message = json::parse(body);
    if (!message) {
      server.replyError(nullptr, kParseError, "invalid JSON: " + llvm::toString(message.takeError()));
      continue;
    }
    if (!server.handle(*message))
      return server.exitCode();
  }
}

} // namespace tk
