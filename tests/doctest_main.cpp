// The one doctest main shared by every test executable (see libfloat_add_test in CMakeLists.txt).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
