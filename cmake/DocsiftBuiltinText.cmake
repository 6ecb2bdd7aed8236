# docsift_builtin_text(YAML NAMESPACE FUNCTION OUT): writes OUT, a C++ source whose
# NAMESPACE::FUNCTION() returns the text of YAML, and reconfigures when YAML changes. The shipped
# configs (the field schema, builtin:ocr-rules, builtin:ocr-calibration, builtin:ocr-finder) are
# compiled in so that docsift runs from any working directory with no file beside it.
function(docsift_builtin_text yaml namespace function out)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${yaml})
  file(READ ${yaml} DOCSIFT_BUILTIN_TEXT)
  file(RELATIVE_PATH _from ${PROJECT_SOURCE_DIR} ${yaml})
  file(CONFIGURE OUTPUT ${out}
       CONTENT "// Generated from ${_from} by cmake/DocsiftBuiltinText.cmake.\n#include <string_view>\nnamespace ${namespace} {\nstd::string_view ${function}() {\n  return R\"docsift_text(@DOCSIFT_BUILTIN_TEXT@)docsift_text\";\n}\n}  // namespace ${namespace}\n"
       @ONLY)
endfunction()
