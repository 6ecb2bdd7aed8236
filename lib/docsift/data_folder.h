// Where the data that scripts/setup.sh fetches beside a checkout (Tesseract's larger model, the
// second recognizer) is found at run time, from the running program's own path, so that docsift
// needs no environment variable and runs from any working directory.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace docsift {

// The first of these folders named `name` for which `usable` holds, "" when none does:
//   PREFIX/share/docsift/NAME   where `cmake --install` copies it (the program is
//   PREFIX/bin/docsift); CHECKOUT/.deps/NAME         where scripts/setup.sh puts it, seen from the
//   build folder's docsift
//                               (CHECKOUT/build/docsift) and from its tests/ and bench/ programs.
std::string data_folder(const std::string& name,
                        const std::function<bool(const std::filesystem::path&)>& usable);

}  // namespace docsift
