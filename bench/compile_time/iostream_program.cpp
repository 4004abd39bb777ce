// The baseline: a program that prints with <iostream> and nothing else.
#include <iostream>

int main() { std::cout << "hello\n"; }
