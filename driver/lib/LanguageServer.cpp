// The language server behind `tkc lsp`. Each open document is checked as `tkc check` checks a
// file (every kernel, with its first @autotune config) whenever it opens or changes; its
// diagnostics are published per file (an error inside an import goes to that file), and the
// checker's SymbolIndex answers hover and go-to-definition until the next change.
#include "tk/Driver/LanguageServer.h"

#include "tk/Frontend/Builtins.h"
#include "tk/Frontend/SymbolIndex.h"

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
              kInvalidParams = -32602, kInternalError = -32603;

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
/// as the document's name, which no import resolves against.
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

//===----------------------------------------------------------------------===//
// Documents
//===----------------------------------------------------------------------===//

/// One open document and what its last check found.
struct Document {
  std::string path;
  std::string text;
  std::unique_ptr<Compiler> compiler;
  SymbolIndex index;
  uint32_t fileId = 0; // in compiler's sources; 0 when it did not load
  std::set<std::string> publishedTo; // URIs whose diagnostics came from this document
};

class Server {
public:
  Server(std::ostream &out, const CompileOptions &options) : out_(out), options_(options) {
    options_.kernel.clear();
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
  void open(const std::string &uri, std::string text);
  void close(const std::string &uri);
  void check(Document &doc);
  void publish(Document &doc);
  json::Value hover(const json::Object *params);
  json::Value definition(const json::Object *params);
  /// The document and the checker's location of a request's textDocument and position.
  std::pair<Document *, SrcLoc> locate(const json::Object *params);
  json::Value range(const Compiler &compiler, SrcRange range) const;

  std::ostream &out_;
  CompileOptions options_;
  std::map<std::string, std::unique_ptr<Document>> documents_; // by URI
  bool shutdown_ = false;
};

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
    return json::Object{{"line", loc.line - 1}, {"character", utf16Units(line, loc.col - 1)}};
  };
  SrcLoc end = r.end.valid() ? r.end : r.begin;
  return json::Object{{"start", position(r.begin)}, {"end", position(end)}};
}

void Server::check(Document &doc) {
  doc.index = SymbolIndex();
  doc.compiler = std::make_unique<Compiler>(options_);
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
  LLVM_DEBUG(llvm::dbgs() << "tk-lsp: checked " << doc.path << ": "
                          << doc.compiler->diagnostics().diagnostics().size() << " diagnostics\n");
}

void Server::publish(Document &doc) {
  const Compiler &compiler = *doc.compiler;
  const SourceManager &sources = compiler.sourceManager();
  std::string mainUri = uriFromPath(doc.path);
  std::map<std::string, json::Array> byUri;
  byUri[mainUri]; // published even when empty: that clears the editor's old ones
  auto uriOf = [&](uint32_t fileId) { return fileId ? uriFromPath(sources.path(fileId)) : mainUri; };
  for (const Diagnostic &d : compiler.diagnostics().diagnostics()) {
    json::Array related;
    for (const Diagnostic &note : d.notes)
      related.push_back(json::Object{
          {"location", json::Object{{"uri", uriOf(note.range.begin.fileId)}, {"range", range(compiler, note.range)}}},
          {"message", note.message}});
    json::Object diagnostic{{"range", range(compiler, d.range)},
                            {"severity", d.severity == Severity::Error ? 1 : d.severity == Severity::Warning ? 2 : 3},
                            {"source", "tkc"},
                            {"message", d.message}};
    if (!related.empty())
      diagnostic["relatedInformation"] = std::move(related);
    byUri[uriOf(d.range.begin.fileId)].push_back(std::move(diagnostic));
  }
  for (const std::string &uri : doc.publishedTo) // files that had diagnostics and have none now
    byUri[uri];
  doc.publishedTo.clear();
  for (auto &[uri, diagnostics] : byUri) {
    if (!diagnostics.empty())
      doc.publishedTo.insert(uri);
    writeMessage(out_, json::Object{{"jsonrpc", "2.0"},
                                    {"method", "textDocument/publishDiagnostics"},
                                    {"params", json::Object{{"uri", uri}, {"diagnostics", std::move(diagnostics)}}}});
  }
}

void Server::open(const std::string &uri, std::string text) {
  auto &slot = documents_[uri];
  if (!slot) {
    if (documents_.size() > LanguageServerLimits::kMaxOpenDocuments) {
      documents_.erase(uri);
      writeMessage(out_, json::Object{{"jsonrpc", "2.0"},
                                      {"method", "window/showMessage"},
                                      {"params", json::Object{{"type", 1},
                                                              {"message", "tkc lsp: more than " +
                                                                              std::to_string(LanguageServerLimits::kMaxOpenDocuments) +
                                                                              " open documents; " + uri + " is not checked"}}}});
      return;
    }
    slot = std::make_unique<Document>();
    slot->path = pathFromUri(uri);
  }
  slot->text = std::move(text);
  check(*slot);
  publish(*slot);
}

void Server::close(const std::string &uri) {
  auto it = documents_.find(uri);
  if (it == documents_.end())
    return;
  for (const std::string &published : it->second->publishedTo) // a closed file shows no errors
    writeMessage(out_, json::Object{{"jsonrpc", "2.0"},
                                    {"method", "textDocument/publishDiagnostics"},
                                    {"params", json::Object{{"uri", published}, {"diagnostics", json::Array{}}}}});
  documents_.erase(it);
}

std::pair<Document *, SrcLoc> Server::locate(const json::Object *params) {
  std::string uri = stringAt(objectAt(params, "textDocument"), "uri");
  const json::Object *position = objectAt(params, "position");
  auto line = position ? position->getInteger("line") : std::nullopt;
  auto character = position ? position->getInteger("character") : std::nullopt;
  if (uri.empty() || !line || !character || *line < 0 || *character < 0)
    throw RequestError{kInvalidParams, "a position request needs textDocument.uri and position {line, character}"};
  auto it = documents_.find(uri);
  if (it == documents_.end() || !it->second->fileId)
    return {nullptr, {}};
  Document &doc = *it->second;
  if (*line >= int64_t(UINT32_MAX) || *character >= int64_t(UINT32_MAX))
    return {&doc, {}};
  uint32_t lineNo = uint32_t(*line) + 1;
  std::string text = doc.compiler->sourceManager().lineText(doc.fileId, lineNo);
  uint32_t col = uint32_t(std::min<size_t>(codePointsOfUnits(text, unsigned(*character)), UINT32_MAX - 1)) + 1;
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

json::Value Server::hover(const json::Object *params) {
  auto [doc, at] = locate(params);
  if (!doc || !at.valid())
    return nullptr;
  std::vector<std::string> texts = doc->index.hoverAt(at);
  if (texts.empty()) // code no kernel instantiates: a builtin is still known by name
    if (const BuiltinInfo *builtin =
            lookupBuiltin(wordAt(doc->compiler->sourceManager().lineText(at.fileId, at.line), at.col)))
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
        at.fileId, wordAt(doc->compiler->sourceManager().lineText(at.fileId, at.line), at.col));
  if (!decl)
    return nullptr;
  return json::Object{{"uri", uriFromPath(doc->compiler->sourceManager().path(decl->begin.fileId))},
                      {"range", range(*doc->compiler, *decl)}};
}

json::Value Server::request(llvm::StringRef method, const json::Object *params) {
  if (method == "initialize")
    return json::Object{
        {"capabilities", json::Object{{"textDocumentSync", json::Object{{"openClose", true}, {"change", 1}}},
                                      {"hoverProvider", true},
                                      {"definitionProvider", true}}},
        {"serverInfo", json::Object{{"name", "tkc"}}}};
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
  const json::Object *document = objectAt(params, "textDocument");
  std::string uri = stringAt(document, "uri");
  if (method == "textDocument/didOpen") {
    if (!uri.empty() && document->getString("text"))
      open(uri, document->getString("text")->str());
  } else if (method == "textDocument/didChange") {
    // Full synchronization (the capability sent): the last change holds the whole text.
    const json::Array *changes = params ? params->getArray("contentChanges") : nullptr;
    if (!uri.empty() && documents_.count(uri) && changes && !changes->empty())
      if (const json::Object *last = changes->back().getAsObject())
        if (auto text = last->getString("text"))
          open(uri, text->str());
  } else if (method == "textDocument/didClose") {
    close(uri);
  } // `initialized`, `didSave`, `$/` notifications and the rest need nothing
}

bool Server::handle(const json::Value &message) {
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
