// A program: the main .tk file and every module it imports, with each module's visible names.
#ifndef TK_FRONTEND_PROGRAM_H
#define TK_FRONTEND_PROGRAM_H

#include "tk/Frontend/AST.h"

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tk {

/// What a top-level name of a module refers to.
struct GlobalSymbol {
  enum class Kind { Const, Fn, Kernel };
  Kind kind;
  const ConstItem *constItem = nullptr;
  const FnItem *fn = nullptr;
  const KernelItem *kernel = nullptr;
  SrcRange range;
};

class Program {
public:
  Program(SourceManager &sources, DiagEngine &diags, std::vector<std::string> stdlibDirs)
      : sources_(sources), diags_(diags), stdlibDirs_(std::move(stdlibDirs)) {}

  /// Loads the main file (from disk, or from `text` when given) and, recursively, its imports.
  /// Returns false when any file failed to load or parse (the errors are reported).
  /// `mainHasFolder` false: the main text lies in no folder (an editor's untitled buffer), so
  /// its imports come from the stdlib only, never from the working folder.
  bool loadMain(const std::string &path, const std::string *text = nullptr, bool mainHasFolder = true);

  ModuleAST *mainModule() const { return modules_.empty() ? nullptr : modules_.front().get(); }
  const std::vector<std::unique_ptr<ModuleAST>> &modules() const { return modules_; }

  /// Looks `name` up among the items of the module `fileId` and the modules it imports.
  const GlobalSymbol *lookup(uint32_t fileId, const std::string &name) const;

  SourceManager &sources() { return sources_; }
  DiagEngine &diags() { return diags_; }

private:
  ModuleAST *load(const std::string &path, const std::string *text, SrcRange importedAt,
                  std::vector<std::string> &stack);
  /// Where an import may be, in lookup order: beside the importing file (not for a main file
  /// given without a folder), then in each stdlib folder.
  std::vector<std::filesystem::path> importCandidates(const std::string &fromPath, const std::string &target) const;
  /// The first candidate that is a regular file, canonical; "" if none.
  std::string resolveImport(const std::string &fromPath, const std::string &target) const;
  void collectSymbols(ModuleAST &module);
  /// A name (const or fn) that two of a file's imports define, and the file itself does not:
  /// a located error at the second import (a use of it took the first import's silently).
  void checkImportClashes(const ModuleAST &module, const std::vector<std::pair<ModuleAST *, SrcRange>> &imports);

  SourceManager &sources_;
  DiagEngine &diags_;
  std::vector<std::string> stdlibDirs_;
  std::string mainWithoutFolder_; // the main file's path when it lies in no folder
  std::vector<std::unique_ptr<ModuleAST>> modules_;
  std::map<std::string, ModuleAST *> byPath_;
  bool ok_ = true;
  // fileId -> visible names (own items first, then imported ones).
  std::map<uint32_t, std::map<std::string, GlobalSymbol>> scopes_;
  std::map<uint32_t, std::vector<ModuleAST *>> importsOf_;
};

} // namespace tk

#endif
