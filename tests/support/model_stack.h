// Cases that run a model skip in a build without LibTorch (-DDOCSIFT_WITH_TORCH=OFF;
// docs/install.md, "Without LibTorch"), which has no model stack; everything else in them runs in
// both builds.
#pragma once

#include "docsift/batch/model_support.h"
#include "support/skip.h"

namespace docsift::testing {

inline bool model_stack_built() { return batch::without_model_stack().empty(); }

}  // namespace docsift::testing

#define DOCSIFT_NEEDS_MODEL_STACK()                                   \
  do {                                                                \
    if (!::docsift::testing::model_stack_built())                     \
      DOCSIFT_SKIP("built without LibTorch: this case runs a model"); \
  } while (0)
