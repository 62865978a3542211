#include "ModuleCache.h"

#include "tk/Frontend/Parser.h"

#include <fstream>
#include <sstream>

namespace tk {

namespace {

std::vector<std::string> fields(const std::string &line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  for (std::string field; std::getline(ss, field, '\t');)
    out.push_back(field);
  return out;
}

} // namespace

std::string moduleKey(const std::string &path, const std::string &text, const std::vector<std::string> &stdlibDirs) {
  std::vector<std::string> parts{"module-decls-3", compilerBuildId(), path, text};
  parts.insert(parts.end(), stdlibDirs.begin(), stdlibDirs.end());
  return cacheKey(parts);
}

std::string sourcesHash(const std::vector<std::pair<std::string, std::string>> &sources) {
  std::vector<std::string> parts{"module"};
  for (const auto &[file, source] : sources) {
    parts.push_back(file);
    parts.push_back(source);
  }
  return cacheKey(parts);
}

// One record a line, fields separated by tabs (no name or value of the language holds one):
//   source HASH | import PATH HASH | kernel NAME |
//   param NAME CONST NOSPEC DEFAULT PTR SCALAR DTYPE ELEMFROM (DTYPE 1: a `const T: dtype`;
//   ELEMFROM: the dtype parameter of the element type, "-" for none)
//   key NAME | reset NAME | restore NAME | config NAME=VALUE...
void storeModuleEntry(DiskCache &cache, const std::string &key, const ModuleEntry &entry,
                      const std::vector<std::pair<std::string, std::string>> &sources) {
  std::ostringstream out;
  out << "tk-module-decls 4\nsource\t" << entry.sourceHash << "\n";
  for (size_t k = 1; k < sources.size(); ++k) // the first is the main file, which is in the key
    out << "import\t" << sources[k].first << "\t" << cacheKey({sources[k].second}) << "\n";
  for (const KernelDecl &decl : entry.decls) {
    out << "kernel\t" << decl.name << "\n";
    for (const KernelDecl::Param &p : decl.params)
      out << "param\t" << p.name << "\t" << p.isConst << "\t" << p.nospec << "\t" << p.hasDefault << "\t"
          << p.type.elem.isPtr << "\t" << scalarName(p.type.elem.scalar) << "\t"
          << (p.type.kind == Type::Kind::TypeName) << "\t" << (p.elemFrom.empty() ? "-" : p.elemFrom) << "\t"
          << (p.defaultText.empty() ? "-" : p.defaultText) << "\n";
    for (const std::string &k : decl.tuneKey)
      out << "key\t" << k << "\n";
    for (const std::string &r : decl.resetToZero)
      out << "reset\t" << r << "\n";
    for (const std::string &r : decl.restoreValue)
      out << "restore\t" << r << "\n";
    for (const auto &config : decl.configs) {
      out << "config";
      for (const auto &[name, value] : config)
        out << "\t" << name << "=" << value;
      out << "\n";
    }
  }
  std::string error; // best-effort
  cache.put(key, out.str(), error);
}

std::optional<ModuleEntry> loadModuleEntry(DiskCache &cache, const std::string &key) {
  std::optional<std::string> text = cache.get(key);
  if (!text || text->rfind("tk-module-decls 4\n", 0) != 0)
    return std::nullopt;
  ModuleEntry entry;
  std::istringstream in(*text);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<std::string> f = fields(line);
    if (f.empty())
      return std::nullopt;
    if (f[0] == "source" && f.size() == 2) {
      entry.sourceHash = f[1];
    } else if (f[0] == "import" && f.size() == 3) {
      std::string now, error;
      if (!readRegularFile(f[1], ParseLimits::kMaxFileBytes, now, error) || cacheKey({now}) != f[2])
        return std::nullopt; // an import changed: parse again
    } else if (f[0] == "kernel" && f.size() == 2) {
      entry.decls.push_back(KernelDecl{f[1], {}, {}, {}});
    } else if (f[0] == "param" && f.size() == 10 && !entry.decls.empty()) {
      std::optional<Scalar> scalar = parseScalar(f[6]);
      if (!scalar)
        return std::nullopt;
      ElemType elem{*scalar, f[5] == "1"};
      KernelDecl::Param p{f[1],        f[7] == "1" ? Type::typeName(elem) : Type::value(elem),
                          f[2] == "1", f[3] == "1",
                          f[4] == "1", f[8] == "-" ? "" : f[8], f[9] == "-" ? "" : f[9]};
      entry.decls.back().params.push_back(p);
    } else if (f[0] == "key" && f.size() == 2 && !entry.decls.empty()) {
      entry.decls.back().tuneKey.push_back(f[1]);
    } else if (f[0] == "reset" && f.size() == 2 && !entry.decls.empty()) {
      entry.decls.back().resetToZero.push_back(f[1]);
    } else if (f[0] == "restore" && f.size() == 2 && !entry.decls.empty()) {
      entry.decls.back().restoreValue.push_back(f[1]);
    } else if (f[0] == "config" && !entry.decls.empty()) {
      std::map<std::string, std::string> config;
      for (size_t k = 1; k < f.size(); ++k) {
        size_t eq = f[k].find('=');
        if (eq == std::string::npos)
          return std::nullopt;
        config[f[k].substr(0, eq)] = f[k].substr(eq + 1);
      }
      entry.decls.back().configs.push_back(std::move(config));
    } else {
      return std::nullopt;
    }
  }
  if (entry.sourceHash.empty())
    return std::nullopt;
  return entry;
}

} // namespace tk
