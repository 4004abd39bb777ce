# cmake -DBUILD_DIR=<build> -DPREFIX=<dir> [-DCONFIG=<config>] -P install_prefix.cmake
# Installs the build into an empty PREFIX, so the find_package consumer sees only what install() puts there.
foreach(var BUILD_DIR PREFIX)
  if(NOT ${var})
    message(FATAL_ERROR "install_prefix.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${PREFIX}")
set(config_args "")
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()
execute_process(
  COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}" ${config_args}
  COMMAND_ERROR_IS_FATAL ANY)
