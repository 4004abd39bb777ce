# cmake -DSOURCE_DIR=<consumer> -DBINARY_DIR=<scratch> -DCXX_COMPILER=<c++> [-DGENERATOR=<gen>]
#       [-DMAKE_PROGRAM=<prog>] [-DPREFIX_PATH=<install prefix>] -DEXPECT_REGEX=<regex>
#       -P expect_configure_failure.cmake
#
# Configures the consumer project in a fresh BINARY_DIR and succeeds only if that configuration FAILS
# with output matching EXPECT_REGEX (so a failure for an unrelated reason does not pass).
foreach(var SOURCE_DIR BINARY_DIR CXX_COMPILER EXPECT_REGEX)
  if(NOT ${var})
    message(FATAL_ERROR "expect_configure_failure.cmake: -D${var}=... is required")
  endif()
endforeach()

set(configure_args -S "${SOURCE_DIR}" -B "${BINARY_DIR}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
if(GENERATOR)
  list(APPEND configure_args -G "${GENERATOR}")
endif()
if(MAKE_PROGRAM)
  list(APPEND configure_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(PREFIX_PATH)
  list(APPEND configure_args "-DCMAKE_PREFIX_PATH=${PREFIX_PATH}")
endif()

file(REMOVE_RECURSE "${BINARY_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" ${configure_args}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "configuring ${SOURCE_DIR} succeeded; it should have failed:\n${out}${err}")
endif()
# CMake wraps long messages: match against the output with each run of white space made one space.
string(REGEX REPLACE "[ \t\r\n]+" " " flat "${out}${err}")
if(NOT flat MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "configuring ${SOURCE_DIR} failed, but without the expected message "
                      "(${EXPECT_REGEX}):\n${out}${err}")
endif()
message(STATUS "configuration failed as expected")
