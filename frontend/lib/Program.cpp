#include "tk/Frontend/Program.h"

#include "tk/Frontend/FileIO.h"
#include "tk/Frontend/Parser.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace tk {

namespace {

std::string canonical(const std::string &path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(path, ec);
  return ec ? path : p.string();
}
} // namespace

bool Program::loadMain(const std::string &path, const std::string *text, bool mainHasFolder) {
  if (!mainHasFolder)
    mainWithoutFolder_ = path;
  std::vector<std::string> stack;
  ModuleAST *main = load(path, text, SrcRange{}, stack);
  return main && ok_;
}

std::vector<fs::path> Program::importCandidates(const std::string &fromPath, const std::string &target) const {
  std::vector<fs::path> candidates;
  if (fromPath != mainWithoutFolder_)
    candidates.push_back(fs::path(fromPath).parent_path() / target);
  for (const std::string &dir : stdlibDirs_)
    candidates.push_back(fs::path(dir) / target);
  return candidates;
}

std::string Program::resolveImport(const std::string &fromPath, const std::string &target) const {
  std::error_code ec;
  for (const fs::path &candidate : importCandidates(fromPath, target))
    if (fs::is_regular_file(candidate, ec))
      return canonical(candidate.string());
  return "";
}

ModuleAST *Program::load(const std::string &path, const std::string *text, SrcRange importedAt,
                         std::vector<std::string> &stack) {
  std::string key = text ? path : canonical(path);
  auto onStack = std::find(stack.begin(), stack.end(), key);
  if (onStack != stack.end()) {
    std::string cycle;
    for (auto it = onStack; it != stack.end(); ++it)
      cycle += fs::path(*it).filename().string() + " -> ";
    cycle += fs::path(key).filename().string();
    diags_.error(importedAt, "import cycle: " + cycle);
    ok_ = false;
    return nullptr;
  }
  if (auto it = byPath_.find(key); it != byPath_.end())
    return it->second;

  std::string contents, why;
  if (text) {
    contents = *text;
  } else if (std::unique_ptr<RegularFile> file = RegularFile::open(path, why)) {
    // Regular files only (never a FIFO or a device), and never more than the parser takes.
    if (file->size() > ParseLimits::kMaxFileBytes) {
      uint32_t fileId = sources_.addFile(path, "");
      SrcLoc loc{fileId, 1, 1};
      diags_.error({loc, loc}, "source file is larger than " + std::to_string(ParseLimits::kMaxFileBytes >> 20) + " MiB");
      ok_ = false;
      return nullptr;
    }
    if (!file->readAll(ParseLimits::kMaxFileBytes, contents, why)) {
      diags_.error(importedAt, why);
      ok_ = false;
      return nullptr;
    }
  } else {
    diags_.error(importedAt, "cannot read file '" + path + "'" + why.substr(why.find("':") + 1));
    ok_ = false;
    return nullptr;
  }
  uint32_t fileId = sources_.addFile(path, std::move(contents));
  std::unique_ptr<ModuleAST> parsed = parseModule(sources_, fileId, diags_);
  if (!parsed) {
    ok_ = false;
    return nullptr;
  }
  ModuleAST *module = parsed.get();
  modules_.push_back(std::move(parsed));
  byPath_[key] = module;

  stack.push_back(key);
  std::vector<std::pair<ModuleAST *, SrcRange>> imported;
  for (const ImportItem &imp : module->imports) {
    // The file system stops a path at a NUL (`"a\0.tk"` would open `a`): a control character
    // names no file a program means to import.
    if (std::any_of(imp.path.begin(), imp.path.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; })) {
      diags_.error(imp.range, "import path has a control character (a NUL, a tab, ...): no file is named so");
      ok_ = false;
      continue;
    }
    std::string resolved = resolveImport(path, imp.path);
    if (resolved.empty()) {
      // A folder or a device where the file was looked for: said so, never opened.
      std::error_code ec;
      std::vector<fs::path> candidates = importCandidates(path, imp.path);
      auto other = std::find_if(candidates.begin(), candidates.end(),
                                [&](const fs::path &c) { return fs::exists(c, ec) && !fs::is_regular_file(c, ec); });
      if (other != candidates.end()) {
        diags_.error(imp.range, "import \"" + imp.path + "\" names '" + other->string() + "', which is not a regular file");
        ok_ = false;
        continue;
      }
      // Each folder looked in, so that a wrong TK_STDLIB_DIR or a misplaced file shows.
      std::string looked;
      if (path != mainWithoutFolder_)
        looked = "'" + (fs::path(path).parent_path().empty() ? std::string(".") : fs::path(path).parent_path().string()) + "'";
      for (const std::string &dir : stdlibDirs_)
        looked += (looked.empty() ? "'" : ", '") + dir + "'";
      diags_.error(imp.range, "cannot find import \"" + imp.path + "\" (looked in " +
                                  (looked.empty() ? std::string("no folder") : looked) + ")");
      ok_ = false;
      continue;
    }
    if (ModuleAST *dep = load(resolved, nullptr, imp.range, stack)) {
      importsOf_[fileId].push_back(dep);
      imported.emplace_back(dep, imp.range);
    }
  }
  stack.pop_back();
  collectSymbols(*module);
  checkImportClashes(*module, imported);
  return module;
}

void Program::checkImportClashes(const ModuleAST &module, const std::vector<std::pair<ModuleAST *, SrcRange>> &imports) {
  const auto &own = scopes_[module.fileId];
  std::map<std::string, std::pair<const ModuleAST *, const GlobalSymbol *>> first; // name -> its first import's
  for (const auto &[dep, importRange] : imports)
    for (const auto &[name, symbol] : scopes_[dep->fileId]) {
      if (symbol.kind == GlobalSymbol::Kind::Kernel || own.count(name)) // (kernels are not imported; a local one wins)
        continue;
      auto [it, inserted] = first.emplace(name, std::make_pair(dep, &symbol));
      if (inserted || it->second.first == dep) // (one file imported twice defines it once)
        continue;
      Diagnostic &d = diags_.error(importRange, "'" + name + "' is defined by two imports of this file, '" +
                                                    sources_.path(it->second.first->fileId) + "' and '" +
                                                    sources_.path(dep->fileId) + "': a use of it could mean either");
      DiagEngine::note(d, it->second.second->range, "'" + name + "' defined here");
      DiagEngine::note(d, symbol.range, "and here");
      ok_ = false;
    }
}

void Program::collectSymbols(ModuleAST &module) {
  auto &scope = scopes_[module.fileId];
  auto add = [&](const std::string &name, GlobalSymbol symbol) {
    auto [it, inserted] = scope.emplace(name, symbol);
    if (!inserted) {
      Diagnostic &d = diags_.error(symbol.range, "'" + name + "' is already defined");
      DiagEngine::note(d, it->second.range, "'" + name + "' first defined here");
      ok_ = false;
    }
  };
  for (auto &c : module.consts)
    add(c->name, GlobalSymbol{GlobalSymbol::Kind::Const, c.get(), nullptr, nullptr, c->nameRange});
  for (auto &f : module.fns)
    add(f->name, GlobalSymbol{GlobalSymbol::Kind::Fn, nullptr, f.get(), nullptr, f->nameRange});
  for (auto &k : module.kernels)
    add(k->name, GlobalSymbol{GlobalSymbol::Kind::Kernel, nullptr, nullptr, k.get(), k->nameRange});
}

const GlobalSymbol *Program::lookup(uint32_t fileId, const std::string &name) const {
  if (auto scope = scopes_.find(fileId); scope != scopes_.end())
    if (auto it = scope->second.find(name); it != scope->second.end())
      return &it->second;
  if (auto deps = importsOf_.find(fileId); deps != importsOf_.end())
    for (ModuleAST *dep : deps->second)
      if (auto scope = scopes_.find(dep->fileId); scope != scopes_.end())
        if (auto it = scope->second.find(name); it != scope->second.end())
          return &it->second;
  return nullptr;
}

} // namespace tk
