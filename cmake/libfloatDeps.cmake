# libfloat_require_package(<Package> DEBIAN <debian-package> TARGET <imported-target> FOR <option>)
#
# find_package(<Package> CONFIG) and check that it provides <imported-target>. On failure, stop with a
# message that names the Debian package to install and the option that turns the dependent part off.
# The imported target is created in the calling directory's scope, so call this from the CMakeLists.txt
# of the part that links it.
function(libfloat_require_package package)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "DEBIAN;TARGET;FOR" "")
  if(NOT arg_DEBIAN OR NOT arg_TARGET OR NOT arg_FOR)
    message(FATAL_ERROR "libfloat_require_package(${package}): DEBIAN, TARGET and FOR are required")
  endif()

  if(NOT TARGET ${arg_TARGET})
    find_package(${package} CONFIG QUIET)
  endif()
  if(NOT TARGET ${arg_TARGET})
    message(FATAL_ERROR
      "libfloat: ${arg_FOR} needs ${package} (CMake target ${arg_TARGET}), which was not found.\n"
      "Install the Debian package '${arg_DEBIAN}':\n"
      "    sudo apt-get install ${arg_DEBIAN}\n"
      "or point CMAKE_PREFIX_PATH at another installation, or configure with -D${arg_FOR}=OFF.")
  endif()
  message(STATUS "libfloat: ${package} ${${package}_VERSION} (${arg_TARGET}) for ${arg_FOR}")
endfunction()
