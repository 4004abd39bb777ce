// A consumer program: uses libfloat as any other project would, with only its own compiler flags.
// Returns non-zero when the library gives a wrong answer.
#include <libfloat/libfloat.hpp>

#include <cstdio>

int main() {
    int failures = 0;
    auto check = [&failures](bool ok, const char* what) {
        if (!ok) {
            std::fprintf(stderr, "consumer: FAILED %s\n", what);
            ++failures;
        }
    };

    lf::fp16 x{0.1};
    check(x.bits() == 0x2E66, "fp16{0.1}.bits() == 0x2E66");
    check(static_cast<double>(x) == 0.0999755859375, "double(fp16{0.1}) == 0.0999755859375");
    check(lf::fp16::from_bits(0x3C00) == lf::fp16{1.0}, "fp16::from_bits(0x3C00) == fp16{1.0}");

    if (failures == 0) {
        std::puts("consumer: libfloat OK");
    }
    return failures == 0 ? 0 : 1;
}
