// The baseline program plus the core umbrella header, unused: what including it costs.
#include <libfloat/libfloat.hpp>

#include <iostream>

int main() { std::cout << "hello\n"; }
