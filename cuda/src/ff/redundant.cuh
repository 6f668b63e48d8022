// A field in mont_t's redundant form (values below 2p, see ff/mont.cuh) as a field type of its
// own, so that the curve formulas (ec/xyzz.cuh) run over it unchanged: ec_xyzz_t<redundant_t<
// fp_t>>::add_affine is G1's mixed addition with every product's last subtraction skipped.
// The MSM's bucket sums keep their accumulators in it (msm/bucket_sums.cuh). Conversions are
// explicit both ways: in, any value below 2p as it is (a canonical one, or in tests the other
// representative); out, one subtraction.
#pragma once

namespace cuzk {

template <class F>
struct alignas(alignof(F)) redundant_t {
    F v;  // below 2p

    redundant_t() = default;
    __device__ __forceinline__ explicit redundant_t(const F& below_2p) : v(below_2p) {}
    __device__ __forceinline__ explicit operator F() const { return v.lazy_canonical(); }

    __device__ __forceinline__ static redundant_t zero() { return redundant_t(F::zero()); }
    __device__ __forceinline__ static redundant_t one() { return redundant_t(F::one()); }
    // 0 and p are both zero.
    __device__ __forceinline__ bool is_zero() const { return v.lazy_is_zero(); }

    friend __device__ __forceinline__ redundant_t operator+(const redundant_t& a, const redundant_t& b) {
        return raw(F::lazy_add(a.v, b.v));
    }
    friend __device__ __forceinline__ redundant_t operator-(const redundant_t& a, const redundant_t& b) {
        return raw(F::lazy_sub(a.v, b.v));
    }
    friend __device__ __forceinline__ redundant_t operator*(const redundant_t& a, const redundant_t& b) {
        return raw(F::lazy_mul(a.v, b.v));
    }
    __device__ __forceinline__ redundant_t sqr() const { return raw(v.lazy_sqr()); }
    __device__ __forceinline__ redundant_t dbl() const { return raw(v.lazy_dbl()); }
    __device__ __forceinline__ static redundant_t mul_sub(const redundant_t& a, const redundant_t& b,
                                                          const redundant_t& c, const redundant_t& d) {
        return raw(F::lazy_mul_sub(a.v, b.v, c.v, d.v));
    }

  private:
    __device__ __forceinline__ static redundant_t raw(const F& below_2p) { return redundant_t(below_2p); }
};

}  // namespace cuzk
