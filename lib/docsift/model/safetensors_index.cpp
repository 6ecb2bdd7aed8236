#include "docsift/model/safetensors_index.h"

#include <filesystem>

#include "docsift/error.h"
#include "docsift/strict_json.h"

namespace docsift::model {
namespace {

// A shard name must be a plain file name inside the folder: the index is untrusted input and
// "../../etc/x" or "/abs/path" must not reach open().
void check_shard_name(const std::string& label, const std::string& shard) {
  const std::filesystem::path p(shard);
  if (shard.empty() || p.has_parent_path() || p.is_absolute() || shard == "." || shard == ".." ||
      p.extension() != ".safetensors") {
    throw FileError(label + ": weight_map names shard '" + shard +
                    "', which is not a .safetensors file name in the same folder");
  }
}

}  // namespace

std::map<std::string, std::set<std::string>> parse_safetensors_index(std::string_view text,
                                                                     const std::string& label) {
  const auto index = parse_json_strict(text, label, /*max_depth=*/4);
  const auto map_it = index.is_object() ? index.find("weight_map") : index.end();
  if (map_it == index.end() || !map_it->is_object()) {
    throw FileError(label + ": has no \"weight_map\" object");
  }
  std::map<std::string, std::set<std::string>> names_by_shard;
  for (const auto& [name, shard] : map_it->items()) {
    if (!shard.is_string()) {
      throw FileError(label + ": weight_map entry for '" + name + "' is not a file name");
    }
    check_shard_name(label, shard.get<std::string>());
    names_by_shard[shard.get<std::string>()].insert(name);
  }
  if (names_by_shard.empty()) throw FileError(label + ": weight_map is empty");
  return names_by_shard;
}

}  // namespace docsift::model
