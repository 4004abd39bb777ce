// A consumer of the compiled component libfloat::runtime: the run-time-format operations, a dot
// product under an accumulation model and a matrix-unit dot product, which under
// LIBFLOAT_SEPARATE_RUNTIME (set by linking libfloat::runtime) this program only declares and the
// installed static library defines. Returns non-zero when a result is wrong or the define is missing.
#include <libfloat/libfloat.hpp>
#include <libfloat/models/accumulate.hpp>
#include <libfloat/models/matrix_unit.hpp>

#include <cstdio>
#include <vector>

#if !defined(LIBFLOAT_SEPARATE_RUNTIME)
#error "linking libfloat::runtime should define LIBFLOAT_SEPARATE_RUNTIME"
#endif

int main() {
    int failures = 0;
    auto check = [&failures](bool ok, const char* what) {
        if (!ok) {
            std::fprintf(stderr, "runtime consumer: FAILED %s\n", what);
            ++failures;
        }
    };

    // 1 + 2^-24 in binary16 (0x3C00 + 0x0001, the smallest subnormal): inexact; upward gives the
    // next binary16 after 1, 1 + 2^-10 (0x3C01); nearest even gives 1 (IEEE 754-2019 4.3).
    lf::status st{};
    check(lf::add(lf::binary16, 0x3C00, 0x0001, lf::env{lf::rounding::upward}, st) == 0x3C01, "add upward");
    check(lf::add(lf::binary16, 0x3C00, 0x0001, lf::env{}, st) == 0x3C00, "add nearest even");
    check(lf::has(st, lf::status::inexact), "add raises inexact");

    // {1, 2, 3} . {1, 1, 1} = 6 (binary16 0x4600), exact in every model.
    const std::vector<lf::bits_t> a{0x3C00, 0x4000, 0x4200}, b{0x3C00, 0x3C00, 0x3C00};
    lf::status ds{};
    const lf::value d = lf::dot(lf::accumulations::fp16_acc, a, b, &ds);
    check(d.fmt == lf::binary16 && d.bits == 0x4600 && ds == lf::status{}, "dot under fp16_acc");
    const lf::bits_t u = lf::dot(lf::matrix_units::volta_fp16, lf::binary16, a, lf::binary16, b, 0, ds);
    check(u == 0x40C00000u && ds == lf::status{}, "matrix-unit dot (binary32 6.0)");

    if (failures == 0) {
        std::puts("runtime consumer: libfloat::runtime OK");
    }
    return failures == 0 ? 0 : 1;
}
