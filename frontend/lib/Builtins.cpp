#include "tk/Frontend/Builtins.h"

#include <sstream>

namespace tk {

namespace {
std::vector<BuiltinParam> parseParams(const char *params) {
  std::vector<BuiltinParam> out;
  std::stringstream ss(params);
  std::string item;
  while (std::getline(ss, item, ',')) {
    BuiltinParam param;
    if (item.back() == '?')
      param.optional = true, item.pop_back();
    else if (item.back() == '*')
      param.variadic = true, item.pop_back();
    param.name = item;
    out.push_back(param);
  }
  return out;
}

std::vector<BuiltinInfo> buildTable() {
  struct Row {
    BuiltinId id;
    BuiltinFamily family;
    const char *name;
    const char *params;
  };
  static const Row rows[] = {
#define TK_BUILTIN_ROW(id, name, params, family) {BuiltinId::id, BuiltinFamily::family, name, params},
      TK_BUILTINS(TK_BUILTIN_ROW)
#undef TK_BUILTIN_ROW
  };
  std::vector<BuiltinInfo> table;
  for (const Row &row : rows)
    table.push_back(BuiltinInfo{row.id, row.family, row.name, parseParams(row.params)});
  return table;
}
} // namespace

const std::vector<BuiltinInfo> &allBuiltins() {
  static const std::vector<BuiltinInfo> table = buildTable();
  return table;
}

const BuiltinInfo *lookupBuiltin(const std::string &name) {
  for (const BuiltinInfo &info : allBuiltins())
    if (info.name == name)
      return &info;
  return nullptr;
}

const BuiltinInfo &builtinInfo(BuiltinId id) { return allBuiltins()[(int)id]; }

const BuiltinInfo *descriptorForm(BuiltinId id) {
  auto form = [](BuiltinId id, const char *params) {
    BuiltinInfo info{id, BuiltinFamily::MemoryAccess, builtinInfo(id).name, parseParams(params)};
    info.onDescriptor = true;
    return info;
  };
  static const BuiltinInfo load = form(BuiltinId::Load, "desc,offsets");
  static const BuiltinInfo store = form(BuiltinId::Store, "desc,offsets,value");
  return id == BuiltinId::Load ? &load : id == BuiltinId::Store ? &store : nullptr;
}

std::string BuiltinInfo::signature() const {
  std::string out = name + "(";
  for (size_t i = 0; i < params.size(); ++i) {
    out += i ? ", " : "";
    out += params[i].name;
    if (params[i].optional)
      out += " = ...";
    if (params[i].variadic)
      out += "...";
  }
  return out + ")";
}

} // namespace tk
