#include "docsift/text/bpe.h"

#include <queue>

#include "docsift/error.h"
#include "docsift/text/byte_level.h"

namespace docsift::text {

BpeModel::BpeModel(std::vector<std::pair<std::string, int32_t>> vocab,
                   const std::vector<std::pair<std::string, std::string>>& merges,
                   BpeOptions options, const std::string& label)
    : options_(std::move(options)) {
  int32_t max_id = -1;
  for (const auto& [token, id] : vocab) {
    if (id < 0)
      throw FileError(label + ": vocabulary id " + std::to_string(id) + " for '" + token +
                      "' is negative");
    max_id = std::max(max_id, id);
  }
  // Ids come from the file: refuse a sparse table that would need far more slots than entries.
  if (static_cast<std::size_t>(max_id) >= 2 * vocab.size() + 1024) {
    throw FileError(label + ": vocabulary ids run up to " + std::to_string(max_id) + " for only " +
                    std::to_string(vocab.size()) + " entries");
  }
  id_to_token_.resize(static_cast<std::size_t>(max_id + 1));
  defined_.assign(id_to_token_.size(), false);
  for (auto& [token, id] : vocab) {
    if (defined_[id]) {
      throw FileError(label + ": vocabulary id " + std::to_string(id) + " is given to both '" +
                      id_to_token_[id] + "' and '" + token + "'");
    }
    id_to_token_[id] = std::move(token);
    defined_[id] = true;
  }
  vocab_.reserve(vocab.size());
  for (std::size_t id = 0; id < id_to_token_.size(); ++id) {
    if (!defined_[id]) continue;
    if (!vocab_.emplace(id_to_token_[id], static_cast<int32_t>(id)).second) {
      throw FileError(label + ": vocabulary token '" + id_to_token_[id] + "' appears twice");
    }
  }

  merges_.reserve(merges.size());
  std::string joined;
  for (std::size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& [left, right] = merges[rank];
    const auto a = token_to_id(left);
    const auto b = token_to_id(right);
    joined = left + right;
    const auto merged = token_to_id(joined);
    if (!a || !b || !merged) {
      const std::string& missing = !a ? left : !b ? right : joined;
      throw FileError(label + ": merge " + std::to_string(rank) + " ('" + left + "' '" + right +
                      "') uses '" + missing + "', which is not in the vocabulary");
    }
    // A repeated pair keeps its last rank, as the reference's map construction does.
    merges_[pair_key(*a, *b)] = Merge{static_cast<int32_t>(rank), *merged};
  }

  std::string single;
  for (int b = 0; b < 256; ++b) {
    single.clear();
    append_byte_level(single, std::string_view(reinterpret_cast<const char*>(&b), 1));
    byte_ids_[b] = token_to_id(single).value_or(-1);
  }
  if (options_.unk_token) {
    unk_id_ = token_to_id(*options_.unk_token);
    if (!unk_id_) {
      throw FileError(label + ": unk_token '" + *options_.unk_token + "' is not in the vocabulary");
    }
  }
}

std::optional<int32_t> BpeModel::token_to_id(std::string_view token) const {
  const auto it = vocab_.find(token);
  if (it == vocab_.end()) return std::nullopt;
  return it->second;
}

const std::string* BpeModel::id_to_token(int32_t id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= id_to_token_.size() || !defined_[id])
    return nullptr;
  return &id_to_token_[id];
}

const BpeModel::Merge* BpeModel::find_merge(int32_t a, int32_t b) const {
  const auto it = merges_.find(pair_key(a, b));
  return it == merges_.end() ? nullptr : &it->second;
}

void BpeModel::tokenize(std::string_view raw, std::vector<int32_t>& out) const {
  if (raw.empty()) return;
  if (options_.ignore_merges) {
    std::string spelled;
    spelled.reserve(raw.size() * 2);
    append_byte_level(spelled, raw);
    if (const auto id = token_to_id(spelled)) {
      out.push_back(*id);
      return;
    }
  }
  if (raw.size() == 1) {  // one byte: nothing to merge
    if (byte_ids_[static_cast<unsigned char>(raw[0])] >= 0) {
      out.push_back(byte_ids_[static_cast<unsigned char>(raw[0])]);
      return;
    }
  }
  const bool cacheable = raw.size() <= kMaxCachedWordBytes;
  if (cacheable) {
    std::unique_lock lock(cache_mutex_, std::try_to_lock);
    if (lock.owns_lock()) {
      const auto it = cache_.find(std::string(raw));
      if (it != cache_.end()) {
        out.insert(out.end(), it->second.begin(), it->second.end());
        return;
      }
    }
  }
  const std::size_t first = out.size();
  merge_word(raw, out);
  if (cacheable) {
    std::unique_lock lock(cache_mutex_, std::try_to_lock);
    if (lock.owns_lock()) {
      if (cache_.size() >= kCacheCapacity) cache_.clear();
      cache_.emplace(std::string(raw), std::vector<int32_t>(out.begin() + first, out.end()));
    }
  }
}

// The merge loop: a min-heap of candidate merges ordered by (rank, position) over a linked list
// of symbols. An entry is stale when the symbols at its position changed since it was queued;
// it is still applied if the current pair merges into the same token, exactly as the reference
// implementation decides, so ids agree even for vocabularies where two pairs produce one token.
void BpeModel::merge_word(std::string_view raw, std::vector<int32_t>& out) const {
  struct Symbol {
    int32_t id;
    int32_t prev;
    int32_t next;
    bool alive;
  };
  struct Candidate {
    int32_t rank;
    int32_t pos;
    int32_t new_id;
    bool operator>(const Candidate& o) const {
      return rank != o.rank ? rank > o.rank : pos > o.pos;
    }
  };

  std::vector<Symbol> symbols;
  symbols.reserve(raw.size());
  // Unknown bytes: emitted as unk (fused when asked) or dropped when there is no unk token.
  bool pending_unk = false;
  const auto push_symbol = [&](int32_t id) {
    const auto index = static_cast<int32_t>(symbols.size());
    symbols.push_back({id, index - 1, index + 1, true});
  };
  for (const char ch : raw) {
    const int32_t id = byte_ids_[static_cast<unsigned char>(ch)];
    if (id >= 0) {
      if (pending_unk) push_symbol(*unk_id_);
      pending_unk = false;
      push_symbol(id);
    } else if (unk_id_) {
      if (pending_unk && !options_.fuse_unk) push_symbol(*unk_id_);
      pending_unk = true;
    }
  }
  if (pending_unk) push_symbol(*unk_id_);
  if (symbols.empty()) return;
  symbols.back().next = -1;

  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
  for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
    if (const Merge* m = find_merge(symbols[i].id, symbols[i + 1].id)) {
      queue.push({m->rank, static_cast<int32_t>(i), m->new_id});
    }
  }
  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    Symbol& left = symbols[top.pos];
    if (!left.alive || left.next < 0) continue;
    Symbol& right = symbols[left.next];
    const Merge* current = find_merge(left.id, right.id);
    if (current == nullptr || current->new_id != top.new_id) continue;  // stale entry

    left.id = top.new_id;
    right.alive = false;
    left.next = right.next;
    if (left.next >= 0) symbols[left.next].prev = top.pos;
    if (left.prev >= 0) {
      if (const Merge* m = find_merge(symbols[left.prev].id, left.id)) {
        queue.push({m->rank, left.prev, m->new_id});
      }
    }
    if (left.next >= 0) {
      if (const Merge* m = find_merge(left.id, symbols[left.next].id)) {
        queue.push({m->rank, top.pos, m->new_id});
      }
    }
  }
  for (int32_t i = 0; i >= 0; i = symbols[i].next) out.push_back(symbols[i].id);
}

}  // namespace docsift::text
