# cmake -DSOURCE_DIR=<consumer> -DBINARY_DIR=<scratch> -DCXX_COMPILER=<c++>
#       [-DGENERATOR=<gen>] [-DMAKE_PROGRAM=<prog>] [-DCONFIG=<config>]
#       [-DPREFIX_PATH=<install prefix>] [-DLIBFLOAT_SOURCE_DIR=<repo root>]
#       -P run_consumer.cmake
#
# Configures the consumer project in a fresh BINARY_DIR, builds it, and runs its ctest (which runs the
# consumer executable). Any failing step fails the test.
foreach(var SOURCE_DIR BINARY_DIR CXX_COMPILER)
  if(NOT ${var})
    message(FATAL_ERROR "run_consumer.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT CONFIG)
  set(CONFIG Release)
endif()

set(configure_args -S "${SOURCE_DIR}" -B "${BINARY_DIR}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_BUILD_TYPE=${CONFIG}")
if(GENERATOR)
  list(APPEND configure_args -G "${GENERATOR}")
endif()
if(MAKE_PROGRAM)
  list(APPEND configure_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(PREFIX_PATH)
  list(APPEND configure_args "-DCMAKE_PREFIX_PATH=${PREFIX_PATH}")
endif()
if(LIBFLOAT_SOURCE_DIR)
  list(APPEND configure_args "-DLIBFLOAT_SOURCE_DIR=${LIBFLOAT_SOURCE_DIR}")
endif()

file(REMOVE_RECURSE "${BINARY_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" ${configure_args} COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BINARY_DIR}" --config "${CONFIG}"
  COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND "${CMAKE_CTEST_COMMAND}" --test-dir "${BINARY_DIR}" -C "${CONFIG}" --output-on-failure
  COMMAND_ERROR_IS_FATAL ANY)
