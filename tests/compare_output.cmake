# cmake -DPROGRAM=<exe> -DEXPECTED=<file> -P compare_output.cmake
# Runs PROGRAM and fails unless its standard output equals the contents of EXPECTED.
execute_process(COMMAND "${PROGRAM}" OUTPUT_VARIABLE actual RESULT_VARIABLE rc)
file(READ "${EXPECTED}" expected)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${rc}")
endif()
if(NOT actual STREQUAL expected)
  message(FATAL_ERROR "output differs from ${EXPECTED}\n--- expected\n${expected}--- actual\n${actual}")
endif()
message(STATUS "output matches ${EXPECTED}")
