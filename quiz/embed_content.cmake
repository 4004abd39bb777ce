# cmake -DOUTPUT=<header> -DCONTENT_DIR=<quiz/content> -P embed_content.cmake
#
# Writes a header with each language file (<lang>.txt in CONTENT_DIR) as a std::string_view (mpq::embedded::content_<lang>),
# so the quiz needs nothing from the source tree at run time.
set(_out "// Generated from quiz/content/*.txt by quiz/embed_content.cmake. Do not edit.\n#pragma once\n#include <string_view>\nnamespace mpq::embedded {\n")
file(GLOB _inputs "${CONTENT_DIR}/*.txt")
list(SORT _inputs)
foreach(_in IN LISTS _inputs)
  get_filename_component(_lang "${_in}" NAME_WE)
  file(READ "${_in}" _text)
  string(FIND "${_text}" ")lfq\"" _bad)
  if(NOT _bad EQUAL -1)
    message(FATAL_ERROR "${_in}: contains the raw-string delimiter )lfq\"")
  endif()
  string(APPEND _out "inline constexpr std::string_view content_${_lang} = R\"lfq(${_text})lfq\";\n")
endforeach()
string(APPEND _out "}  // namespace mpq::embedded\n")
file(WRITE "${OUTPUT}.tmp" "${_out}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
