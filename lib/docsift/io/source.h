// What a page's source file was when it was read, so that `run --resume` can tell a file that
// changed under the same name from one it already did (docs/run.md, "Resume"). Size and
// modification time are a stat(); the content hash is read only for files up to kHashMaxBytes,
// and `--resume` computes it only for a file whose size or time moved, so a night over an
// unchanged inbox reads no file twice.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace docsift::io {

// 64 MiB: every scan and receipt we have seen is under it (a 600 dpi A4 colour TIFF is ~100 MB,
// which keeps size and time only).
inline constexpr std::uint64_t kHashMaxBytes = 64ull << 20;

struct SourceStamp {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;        // nanoseconds since the Unix epoch
  std::optional<std::string> hash;  // "fnv1a64:<16 hex>" of the content, for files ≤ kHashMaxBytes
};

// `path` pinned (pinned_file.h), then stamp_pinned: nullopt when it cannot be stat'ed or is not
// `expected_real` (the read that follows reports why). Without `with_hash` the content is not read.
std::optional<SourceStamp> stamp_file(const std::filesystem::path& path, bool with_hash,
                                      const std::filesystem::path& expected_real = {});

class PinnedFile;
// The stamp of a file already pinned (pinned_file.h): its size and time by fstat, its hash read
// through that same opening. nullopt when it cannot be stat'ed.
std::optional<SourceStamp> stamp_pinned(const PinnedFile& pin, bool with_hash);

// The content hash stamp_file records; nullopt for a file over kHashMaxBytes or unreadable.
std::optional<std::string> content_hash(const std::filesystem::path& path,
                                        const std::filesystem::path& expected_real = {});

// Why `now` is not the file `before` was, as a short phrase ("size 1200 → 1350 bytes",
// "modified 2026-11-24T02:00:03.000Z → …"); "" when size and time are equal.
std::string stamp_change(const SourceStamp& before, const SourceStamp& now);

}  // namespace docsift::io
