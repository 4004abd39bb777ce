# Included by both consumer projects after libfloat::libfloat exists: the library must hand a consumer
# its include directory and cxx_std_20, and nothing of libfloat's own build (no warning flags such as
# -Werror, no link to libfloat_warnings).
if(NOT TARGET libfloat::libfloat)
  message(FATAL_ERROR "libfloat::libfloat is not a target")
endif()
foreach(property INTERFACE_COMPILE_OPTIONS INTERFACE_COMPILE_DEFINITIONS INTERFACE_LINK_LIBRARIES
                 INTERFACE_LINK_OPTIONS)
  get_target_property(value libfloat::libfloat ${property})
  if(value)
    message(FATAL_ERROR "libfloat::libfloat leaks ${property} to consumers: ${value}")
  endif()
endforeach()
get_target_property(features libfloat::libfloat INTERFACE_COMPILE_FEATURES)
if(NOT "cxx_std_20" IN_LIST features)
  message(FATAL_ERROR "libfloat::libfloat does not require cxx_std_20 (INTERFACE_COMPILE_FEATURES: ${features})")
endif()
