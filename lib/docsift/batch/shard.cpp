#include "docsift/batch/shard.h"

#include <charconv>
#include <system_error>

#include "docsift/error.h"

namespace docsift::batch {
namespace {

// A whole decimal integer, or nothing ("", "+3", "3x", " 3" and overflow are nothing).
std::optional<long long> parse_integer(std::string_view text) {
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// An environment variable as an integer; nullopt when unset, an error naming it when malformed.
std::optional<long long> env_integer(const Getenv& getenv, const char* name) {
  const char* value = getenv(name);
  if (value == nullptr) return std::nullopt;
  const auto parsed = parse_integer(value);
  if (!parsed) {
    throw ConfigError(std::string("--shard auto: ") + name + "=\"" + value +
                      "\" is not a whole number");
  }
  return parsed;
}

Shard checked(long long index, long long count, std::string source) {
  if (count < 1 || count > kMaxShards) {
    throw ConfigError(source + ": " + std::to_string(count) + " shards; give between 1 and " +
                      std::to_string(kMaxShards));
  }
  if (index < 1 || index > count) {
    throw ConfigError(source + ": shard " + std::to_string(index) + " is outside 1.." +
                      std::to_string(count));
  }
  return {static_cast<int>(index), static_cast<int>(count), std::move(source)};
}

Shard from_slurm(const Getenv& getenv, std::optional<int> shards) {
  const long long id = *env_integer(getenv, "SLURM_ARRAY_TASK_ID");
  // With --shards N the task id is the shard number, so `sbatch --array=3` redoes shard 3 alone.
  if (shards) {
    if (id < 1 || id > *shards) {
      throw ConfigError(
          "--shard auto: SLURM_ARRAY_TASK_ID=" + std::to_string(id) + " is outside 1.." +
          std::to_string(*shards) +
          "; with --shards N the array's task ids are the shard numbers (sbatch --array=1-N)");
    }
    return checked(
        id, *shards,
        "SLURM_ARRAY_TASK_ID=" + std::to_string(id) + " of --shards " + std::to_string(*shards));
  }
  const auto min = env_integer(getenv, "SLURM_ARRAY_TASK_MIN");
  const auto max = env_integer(getenv, "SLURM_ARRAY_TASK_MAX");
  const auto count = env_integer(getenv, "SLURM_ARRAY_TASK_COUNT");
  const long long step = env_integer(getenv, "SLURM_ARRAY_TASK_STEP").value_or(1);
  if (!min) {
    throw ConfigError(
        "--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN is not; run inside a "
        "Slurm job array (sbatch --array=1-N) or pass --shard K/N");
  }
  if (!max && !count) {
    throw ConfigError(
        "--shard auto: neither SLURM_ARRAY_TASK_MAX nor SLURM_ARRAY_TASK_COUNT is set; run inside "
        "a Slurm job array (sbatch --array=1-N) or pass --shard K/N");
  }
  if (step < 1)
    throw ConfigError("--shard auto: SLURM_ARRAY_TASK_STEP=" + std::to_string(step) +
                      " must be at least 1");
  if (id < *min || (id - *min) % step != 0 || (max && id > *max)) {
    throw ConfigError("--shard auto: SLURM_ARRAY_TASK_ID=" + std::to_string(id) +
                      " is not a task of the array " + std::to_string(*min) + "-" +
                      (max ? std::to_string(*max) : "?") + ":" + std::to_string(step));
  }
  const long long spanned = max ? (*max - *min) / step + 1 : *count;
  // An array given as a list (--array=1,3,8) has gaps: MIN..MAX then spans more tasks than COUNT.
  if (count && *count != spanned) {
    throw ConfigError("--shard auto: SLURM_ARRAY_TASK_COUNT=" + std::to_string(*count) +
                      " but SLURM_ARRAY_TASK_MIN.." + "SLURM_ARRAY_TASK_MAX (" +
                      std::to_string(*min) + ".." + std::to_string(*max) + ", step " +
                      std::to_string(step) + ") spans " + std::to_string(spanned) +
                      " tasks; use a contiguous array such as sbatch --array=1-N");
  }
  const long long index = (id - *min) / step + 1;
  return checked(index, spanned,
                 "SLURM_ARRAY_TASK_ID=" + std::to_string(id) + " (array " + std::to_string(*min) +
                     "-" + std::to_string(*min + (spanned - 1) * step) + ")");
}

Shard from_kubernetes(const Getenv& getenv, std::optional<int> shards) {
  const long long index = *env_integer(getenv, "JOB_COMPLETION_INDEX");
  if (!shards) {
    throw ConfigError(
        "--shard auto: JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but not the number "
        "of shards; pass --shards N with N = the Job's spec.completions");
  }
  if (index < 0 || index >= *shards) {
    throw ConfigError("--shard auto: JOB_COMPLETION_INDEX=" + std::to_string(index) +
                      " is outside 0.." + std::to_string(*shards - 1) + " for --shards " +
                      std::to_string(*shards) + "; --shards must equal the Job's spec.completions");
  }
  return checked(index + 1, *shards, "JOB_COMPLETION_INDEX=" + std::to_string(index));
}

}  // namespace

std::string Shard::folder_name() const {
  return "shard-" + std::to_string(index) + "-of-" + std::to_string(count);
}

std::optional<Shard> shard_of_folder_name(std::string_view name) {
  constexpr std::string_view kHead = "shard-", kOf = "-of-";
  if (name.substr(0, kHead.size()) != kHead) return std::nullopt;
  name.remove_prefix(kHead.size());
  const auto of = name.find(kOf);
  if (of == std::string_view::npos) return std::nullopt;
  const auto number = [](std::string_view digits) -> std::optional<int> {
    int value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() ||
        digits[0] == '0')
      return std::nullopt;
    return value;
  };
  const auto index = number(name.substr(0, of)), count = number(name.substr(of + kOf.size()));
  if (!index || !count || *index > *count || *count > kMaxShards) return std::nullopt;
  return Shard{*index, *count, std::string(kHead) + std::string(name)};
}

Shard parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  const auto index =
      slash == std::string_view::npos ? std::nullopt : parse_integer(text.substr(0, slash));
  const auto count =
      slash == std::string_view::npos ? std::nullopt : parse_integer(text.substr(slash + 1));
  if (!index || !count) {
    throw ConfigError("--shard " + std::string(text) +
                      ": expected K/N, shard K of N counted from 1 (e.g. --shard 2/4), or auto");
  }
  return checked(*index, *count, "--shard " + std::string(text));
}

Shard shard_from_environment(std::optional<int> shards, const Getenv& getenv) {
  const bool slurm = getenv("SLURM_ARRAY_TASK_ID") != nullptr;
  const bool kubernetes = getenv("JOB_COMPLETION_INDEX") != nullptr;
  if (slurm && kubernetes) {
    throw ConfigError(
        "--shard auto: both SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX are set; pass --shard "
        "K/N");
  }
  if (slurm) return from_slurm(getenv, shards);
  if (kubernetes) return from_kubernetes(getenv, shards);
  throw ConfigError(
      "--shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor JOB_COMPLETION_INDEX (a "
      "Kubernetes Indexed Job) is set; pass --shard K/N");
}

int shard_of(std::string_view relative, int count) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a, 64-bit
  for (const unsigned char c : relative) h = (h ^ c) * 1099511628211ull;
  h ^= h >> 30;  // SplitMix64's finaliser
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return static_cast<int>(h % static_cast<std::uint64_t>(count)) + 1;
}

}  // namespace docsift::batch
