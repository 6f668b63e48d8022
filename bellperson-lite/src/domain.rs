//! Radix-2 number-theoretic transforms over the BLS12-381 scalar field.
//!
//! The prover evaluates and interpolates the A, B and C polynomials on a power-of-two
//! domain and on a coset of it. Results must match bellperson bit for bit, so the domain
//! generator is the one bellperson uses: `omega = ROOT_OF_UNITY^(2^(32 - log_size))`, and
//! the coset shift is `MULTIPLICATIVE_GENERATOR`.
//!
//! # How the transform is organised
//!
//! The butterfly network is the Cooley-Tukey one that maps natural-order input to
//! bit-reversed output, with a single twiddle per block: at a stage with `2^s` blocks,
//! block `k` uses `omega^bitrev(k)`. Storing the `n/2` twiddles in bit-reversed order makes
//! every stage read a contiguous prefix (or sub-range) of one table, so no butterfly spends
//! a multiplication on advancing a twiddle, and the table serves every stage.
//!
//! For large sizes the `n = rows * cols` elements are viewed as a matrix with rows of
//! `cols` contiguous elements. The first `log(rows)` stages only mix elements of the same
//! column, and the rest only mix elements of the same row. So the transform is two passes
//! over memory instead of `log n`: columns are gathered a few at a time into a per-thread
//! scratch buffer that stays in cache, transformed and written back; then each row (which
//! fits in L2) is transformed in place. Both passes are parallel over independent columns
//! and rows. A cache-blocked bit-reversal permutation then puts the output in natural
//! order; the coset shift and the `1/n` scaling are folded into the column pass and the
//! permutation, so they cost no extra pass over memory.
//!
//! The inverse transform runs the same network with `omega^-1`. Its twiddles are read
//! from the forward table: `omega^-bitrev(k) = -omega^bitrev(k')` where `k'` flips the bits
//! of `k` below its top set bit, and the minus sign is absorbed by swapping the two
//! outputs of the butterfly.

use std::sync::OnceLock;

use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

use crate::error::ProverError;

/// Sizes up to `2^SERIAL_LOG` are transformed on the calling thread: below this the
/// work is a few hundred microseconds and task overhead would dominate.
const SERIAL_LOG: u32 = 10;

/// Blocks of at most this many elements (256 KiB) finish all their remaining stages
/// while resident in L2, instead of one stage at a time over the whole buffer.
const LEAF_LEN: usize = 1 << 13;

/// Columns gathered together in the column pass. 8 columns are 256 contiguous bytes of
/// each row, enough to use whole cache lines and keep the hardware prefetcher busy.
const LANES: usize = 8;

/// Low/high index bits handled per block by the bit-reversal permutation: a pair of
/// blocks is 2 * 2^(2 * BITREV_BITS) elements (256 KiB), permuted within L2.
const BITREV_BITS: u32 = 6;

/// Elements per task for the simple element-wise parallel loops.
const CHUNK: usize = 1 << 14;

/// A power-of-two evaluation domain with its precomputed constants.
#[derive(Clone)]
pub struct EvaluationDomain {
    log_size: u32,
    size: usize,
    omega: Scalar,
    size_inv: Scalar,
    /// The coset shift `g` and its inverse.
    gen: Scalar,
    gen_inv: Scalar,
    /// `g^n - 1`, the vanishing polynomial on the coset, and its inverse.
    z_coset: Scalar,
    z_coset_inv: Scalar,
    /// `twiddles[k] = omega^bitrev(k)` over `log_size - 1` bits, `k < n/2`. Built on first
    /// use: callers that only need the size or `z` do not pay for `n/2` field elements.
    twiddles: OnceLock<Vec<Scalar>>,
}

impl std::fmt::Debug for EvaluationDomain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvaluationDomain")
            .field("log_size", &self.log_size)
            .field("omega", &self.omega)
            .finish_non_exhaustive()
    }
}

impl EvaluationDomain {
    /// Smallest power-of-two domain with at least `min_size` points.
    pub fn new(min_size: usize) -> Result<Self, ProverError> {
        let Some(size) = min_size.max(1).checked_next_power_of_two() else {
            return Err(ProverError::DomainTooLarge {
                log_size: usize::BITS,
            });
        };
        let log_size = size.trailing_zeros();
        if log_size > Scalar::S {
            return Err(ProverError::DomainTooLarge { log_size });
        }

        // bellperson squares the 2^S-th root down to the domain size; any other primitive
        // root would permute the evaluations and change the proofs.
        let mut omega = Scalar::ROOT_OF_UNITY;
        for _ in log_size..Scalar::S {
            omega = omega.square();
        }
        let gen = Scalar::MULTIPLICATIVE_GENERATOR;
        let z_coset = gen.pow_vartime([size as u64]) - Scalar::ONE;
        Ok(Self {
            log_size,
            size,
            omega,
            size_inv: invert(Scalar::from(size as u64)),
            gen,
            gen_inv: invert(gen),
            z_coset,
            // g generates the multiplicative group (order r - 1 > 2^32), so g^n != 1.
            z_coset_inv: invert(z_coset),
            twiddles: OnceLock::new(),
        })
    }

    /// Number of points, `2^log_size`.
    pub fn size(&self) -> usize {
        self.size
    }

    pub fn log_size(&self) -> u32 {
        self.log_size
    }

    /// The generator of the domain, a primitive `size()`-th root of unity.
    pub fn omega(&self) -> Scalar {
        self.omega
    }

    /// Coefficients to evaluations at `omega^i`, natural order in and out.
    pub fn fft(&self, v: &mut [Scalar]) -> Result<(), ProverError> {
        self.check_len(v)?;
        self.transform(v, false, None);
        bit_reverse_scaled(v, None);
        Ok(())
    }

    /// Evaluations at `omega^i` to coefficients (the inverse of [`Self::fft`], `1/n`
    /// scaling included).
    pub fn ifft(&self, v: &mut [Scalar]) -> Result<(), ProverError> {
        self.check_len(v)?;
        self.transform(v, true, None);
        bit_reverse_scaled(v, Some((self.size_inv, Scalar::ONE)));
        Ok(())
    }

    /// Coefficients to evaluations at `g * omega^i`: coefficient `i` is multiplied by `g^i`
    /// (inside the first pass), then transformed as by [`Self::fft`].
    pub fn coset_fft(&self, v: &mut [Scalar]) -> Result<(), ProverError> {
        self.check_len(v)?;
        self.transform(v, false, Some(self.gen));
        bit_reverse_scaled(v, None);
        Ok(())
    }

    /// Evaluations at `g * omega^i` to coefficients: the inverse of [`Self::coset_fft`].
    pub fn icoset_fft(&self, v: &mut [Scalar]) -> Result<(), ProverError> {
        self.check_len(v)?;
        self.transform(v, true, None);
        bit_reverse_scaled(v, Some((self.size_inv, self.gen_inv)));
        Ok(())
    }

    /// The vanishing polynomial of the domain at `tau`: `Z(tau) = tau^n - 1`.
    pub fn z(&self, tau: &Scalar) -> Scalar {
        tau.pow_vartime([self.size as u64]) - Scalar::ONE
    }

    /// The vanishing polynomial `Z(X) = X^n - 1` on the coset: `Z(g * omega^i) = g^n - 1`
    /// for every `i`.
    pub fn z_on_coset(&self) -> Scalar {
        self.z_coset
    }

    /// Divides evaluations on the coset by `Z`, turning `A*B - C` into the quotient `H`.
    pub fn divide_by_z_on_coset(&self, v: &mut [Scalar]) -> Result<(), ProverError> {
        self.check_len(v)?;
        let z_inv = self.z_coset_inv;
        v.par_chunks_mut(CHUNK)
            .for_each(|c| c.iter_mut().for_each(|x| *x *= z_inv));
        Ok(())
    }

    fn check_len(&self, v: &[Scalar]) -> Result<(), ProverError> {
        if v.len() == self.size {
            Ok(())
        } else {
            Err(ProverError::LengthMismatch {
                what: "evaluation domain",
                expected: self.size,
                actual: v.len(),
            })
        }
    }

    fn twiddles(&self) -> &[Scalar] {
        self.twiddles
            .get_or_init(|| bit_reversed_powers(self.omega, self.size / 2))
    }

    /// The butterfly network: natural order in, bit-reversed order out. `inv` selects
    /// `omega^-1`; `pre = Some(g)` first multiplies element `i` by `g^i`.
    fn transform(&self, v: &mut [Scalar], inv: bool, pre: Option<Scalar>) {
        let log_n = self.log_size;
        if log_n == 0 {
            return;
        }
        let tw = self.twiddles();
        if log_n <= SERIAL_LOG {
            if let Some(g) = pre {
                distribute_powers_serial(v, Scalar::ONE, g);
            }
            network(v, log_n, 0, inv, tw);
            return;
        }

        // Rows of `cols` elements; the column transforms cover the first `log_rows`
        // stages. Rows are the shorter side so that a row always fits in L2 for the
        // sizes a prover uses (2^27 elements: 2^13-element rows, 256 KiB).
        let log_rows = log_n.div_ceil(2);
        let log_cols = log_n - log_rows;
        let cols = 1usize << log_cols;
        column_pass(v, log_rows, cols, inv, tw, pre);
        v.par_chunks_mut(cols)
            .enumerate()
            .for_each(|(r, row)| network(row, log_cols, r, inv, tw));
    }
}

/// `v[i] *= g^i`, in parallel.
pub fn distribute_powers(v: &mut [Scalar], g: Scalar) {
    v.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
        distribute_powers_serial(chunk, g.pow_vartime([(c * CHUNK) as u64]), g)
    });
}

/// `v[i] *= start * g^i`.
fn distribute_powers_serial(v: &mut [Scalar], start: Scalar, g: Scalar) {
    let mut p = start;
    for x in v {
        *x *= p;
        p *= g;
    }
}

fn invert(x: Scalar) -> Scalar {
    // Every caller passes a non-zero constant (a root of unity, n, g, g^n - 1).
    x.invert().expect("inverting a non-zero field constant")
}

/// `[w^bitrev(k) for k < len]`, with `len` a power of two (or zero) and `bitrev` over
/// `log2(len)` bits.
///
/// Built directly in bit-reversed order, one multiplication per entry: if `2^j` is the
/// top bit of `k`, `bitrev(k) = bitrev(k - 2^j) + bitrev(2^j)`, so the entries
/// `2^j..2^(j+1)` are the first `2^j` entries times `w^bitrev(2^j)`.
fn bit_reversed_powers(w: Scalar, len: usize) -> Vec<Scalar> {
    let mut t = vec![Scalar::ZERO; len];
    let Some(first) = t.first_mut() else {
        return t;
    };
    *first = Scalar::ONE;
    let bits = len.trailing_zeros();
    // steps[j] = w^(2^(bits - 1 - j)) = w^bitrev(2^j).
    let mut steps = vec![w; bits as usize];
    for j in (0..steps.len().saturating_sub(1)).rev() {
        steps[j] = steps[j + 1].square();
    }
    for (j, step) in steps.iter().enumerate() {
        let (lo, hi) = t.split_at_mut(1 << j);
        hi[..lo.len()]
            .par_chunks_mut(CHUNK)
            .zip(lo.par_chunks(CHUNK))
            .for_each(|(dst, src)| {
                for (d, s) in dst.iter_mut().zip(src) {
                    *d = *s;
                    *d *= step;
                }
            });
    }
    t
}

/// Twiddle for block `k` of a stage: `(w, negate)`. The inverse network needs
/// `omega^-bitrev(k)`, which is `-twiddles[k']` with `k'` = `k` with the bits below its
/// top set bit flipped (negating the bit-reversed exponent, reflected back to `k`).
#[inline]
fn twiddle(tw: &[Scalar], k: usize, inv: bool) -> (Scalar, bool) {
    if !inv || k == 0 {
        return (tw[k], false);
    }
    let top = usize::BITS - 1 - k.leading_zeros();
    (tw[k ^ ((1usize << top) - 1)], true)
}

/// One stage on one block: butterflies between the two halves with a single twiddle.
///
/// Written with in-place operations only. blstrs' by-value operators return through a
/// stack temporary that the field assembly fills with 8-byte stores and Rust then copies
/// with 16-byte loads, which stalls store-to-load forwarding twice per butterfly; that
/// cost about a quarter of the transform's time.
#[inline]
fn butterflies(block: &mut [Scalar], tw: &[Scalar], k: usize, inv: bool) {
    let (lo, hi) = block.split_at_mut(block.len() / 2);
    if k == 0 {
        // Twiddle 1 in both directions: save the multiplication.
        for (a, b) in lo.iter_mut().zip(hi.iter_mut()) {
            let t = *b;
            *b = *a;
            *a += &t;
            *b -= &t;
        }
        return;
    }
    let (w, neg) = twiddle(tw, k, inv);
    if neg {
        for (a, b) in lo.iter_mut().zip(hi.iter_mut()) {
            let mut t = *b;
            t *= &w;
            *b = *a;
            *a -= &t;
            *b += &t;
        }
    } else {
        for (a, b) in lo.iter_mut().zip(hi.iter_mut()) {
            let mut t = *b;
            t *= &w;
            *b = *a;
            *a += &t;
            *b -= &t;
        }
    }
}

/// Runs `stages` stages of the network on `data`, which is block `base` of the stage
/// before the first one run here (so at local stage `s` its sub-block `j` is global block
/// `base * 2^s + j`). `data.len()` may be a multiple of `2^stages`: the extra factor is a
/// set of interleaved independent transforms (the gathered columns), which share every
/// twiddle. Depth-first, so that once a block fits in cache it is finished there.
fn network(data: &mut [Scalar], stages: u32, base: usize, inv: bool, tw: &[Scalar]) {
    if stages == 0 {
        return;
    }
    if data.len() <= LEAF_LEN {
        for s in 0..stages {
            let len = data.len() >> s;
            for (j, block) in data.chunks_exact_mut(len).enumerate() {
                butterflies(block, tw, (base << s) + j, inv);
            }
        }
        return;
    }
    butterflies(data, tw, base, inv);
    let (lo, hi) = data.split_at_mut(data.len() / 2);
    network(lo, stages - 1, 2 * base, inv, tw);
    network(hi, stages - 1, 2 * base + 1, inv, tw);
}

/// The first `log_rows` stages, as independent transforms of the columns of the
/// `rows x cols` row-major matrix `v`. `pre = Some(g)` multiplies element `i` by `g^i` as
/// it is gathered.
fn column_pass(
    v: &mut [Scalar],
    log_rows: u32,
    cols: usize,
    inv: bool,
    tw: &[Scalar],
    pre: Option<Scalar>,
) {
    let rows = 1usize << log_rows;
    let lanes = LANES.min(cols);
    // Each task owns a vertical strip of the matrix: its piece of every row. A few tasks
    // per thread balance the load; the strip width stays a multiple of `lanes`.
    let tasks = (cols / lanes)
        .min(4 * rayon::current_num_threads().next_power_of_two())
        .max(1);
    let width = cols / tasks;
    let mut strips: Vec<Vec<&mut [Scalar]>> =
        (0..tasks).map(|_| Vec::with_capacity(rows)).collect();
    for row in v.chunks_mut(cols) {
        for (strip, piece) in strips.iter_mut().zip(row.chunks_mut(width)) {
            strip.push(piece);
        }
    }
    // Element (r, c) is number r * cols + c: its shift factor is (g^cols)^r * g^c.
    let row_factors = pre.map(|g| {
        let mut f = vec![Scalar::ONE; rows];
        distribute_powers_serial(&mut f, Scalar::ONE, g.pow_vartime([cols as u64]));
        f
    });

    strips
        .into_par_iter()
        .enumerate()
        .for_each(|(t, mut strip)| {
            let mut scratch = vec![Scalar::ZERO; rows * lanes];
            for off in (0..width).step_by(lanes) {
                for (dst, piece) in scratch.chunks_exact_mut(lanes).zip(strip.iter()) {
                    dst.copy_from_slice(&piece[off..off + lanes]);
                }
                if let (Some(g), Some(rf)) = (pre, &row_factors) {
                    let first = g.pow_vartime([(t * width + off) as u64]);
                    for (dst, f) in scratch.chunks_exact_mut(lanes).zip(rf) {
                        distribute_powers_serial(dst, *f * first, g);
                    }
                }
                network(&mut scratch, log_rows, 0, inv, tw);
                for (src, piece) in scratch.chunks_exact(lanes).zip(strip.iter_mut()) {
                    piece[off..off + lanes].copy_from_slice(src);
                }
            }
        });
}

fn reverse_bits(x: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        x.reverse_bits() >> (usize::BITS - bits)
    }
}

/// Bit-reversal permutation of `v` (length a power of two), then, with
/// `post = Some((c, h))`, `v[i] *= c * h^i`.
///
/// Index `i` is split as `(a, m, b)`: top and bottom `BITREV_BITS` bits and the middle.
/// Its image is `(rev b, rev m, rev a)`, so the `2^(2 * BITREV_BITS)` elements with middle
/// `m` (contiguous runs at `(a, m, *)`) trade places only with those with middle `rev m`.
/// Each such pair of groups is an independent task that fits in L2.
fn bit_reverse_scaled(v: &mut [Scalar], post: Option<(Scalar, Scalar)>) {
    let n = v.len();
    if n <= 1 {
        if let (Some((c, _)), Some(x)) = (post, v.first_mut()) {
            *x *= c;
        }
        return;
    }
    let log_n = n.trailing_zeros();
    let k = BITREV_BITS;
    if log_n < 2 * k + 2 {
        for i in 0..n {
            let j = reverse_bits(i, log_n);
            if i < j {
                v.swap(i, j);
            }
        }
        if let Some((c, h)) = post {
            v.par_chunks_mut(CHUNK).enumerate().for_each(|(i, chunk)| {
                distribute_powers_serial(chunk, c * h.pow_vartime([(i * CHUNK) as u64]), h)
            });
        }
        return;
    }

    let run = 1usize << k;
    let mid_bits = log_n - 2 * k;
    let mids = 1usize << mid_bits;
    let mut groups: Vec<Vec<&mut [Scalar]>> = (0..mids).map(|_| Vec::with_capacity(run)).collect();
    // Run q starts at element q * run, so q = a * mids + m.
    for (q, r) in v.chunks_mut(run).enumerate() {
        groups[q % mids].push(r);
    }
    let mut tasks = Vec::with_capacity(mids / 2 + 1);
    for m in 0..mids {
        let rm = reverse_bits(m, mid_bits);
        if rm > m {
            let a = std::mem::take(&mut groups[m]);
            let b = std::mem::take(&mut groups[rm]);
            tasks.push((m, a, Some((rm, b))));
        } else if rm == m {
            tasks.push((m, std::mem::take(&mut groups[m]), None));
        }
    }

    // Shift factors of index (a, m, b) = c * h^(m * run) * (h^(a * 2^(log_n - k))) * h^b.
    // Plain 1/n scaling (ifft) needs one multiplication per element, no tables.
    let plain = post.filter(|(_, h)| *h == Scalar::ONE).map(|(c, _)| c);
    let tables = post.filter(|(_, h)| *h != Scalar::ONE).map(|(c, h)| {
        let mut top = vec![Scalar::ONE; run];
        distribute_powers_serial(&mut top, Scalar::ONE, h.pow_vartime([1u64 << (log_n - k)]));
        let mut low = vec![Scalar::ONE; run];
        distribute_powers_serial(&mut low, Scalar::ONE, h);
        (c, h.pow_vartime([run as u64]), top, low)
    });
    let scale = |group: &mut [&mut [Scalar]], m: usize| {
        if let Some(c) = plain {
            group
                .iter_mut()
                .for_each(|p| p.iter_mut().for_each(|x| *x *= c));
        } else if let Some((c, h_run, top, low)) = &tables {
            let base = *c * h_run.pow_vartime([m as u64]);
            for (piece, t) in group.iter_mut().zip(top) {
                let f = base * t;
                for (x, l) in piece.iter_mut().zip(low) {
                    let mut y = f;
                    y *= l;
                    *x *= &y;
                }
            }
        }
    };

    // Runs of one group lie 2^(log_n - k) elements apart, a power of two that maps them
    // all to the same cache sets, so walking them column-wise in place thrashes L1 and
    // L2. Instead each group is read row by row into a contiguous buffer (a second
    // buffer for the partner group), permuted there, and written back row by row.
    let rev: Vec<usize> = (0..run).map(|x| reverse_bits(x, k)).collect();
    tasks.into_par_iter().for_each_init(
        || vec![Scalar::ZERO; run * run],
        |buf, (m, mut ga, other)| {
            match other {
                Some((rm, mut gb)) => {
                    for (dst, src) in buf.chunks_exact_mut(run).zip(gb.iter()) {
                        dst.copy_from_slice(src);
                    }
                    for (row, &ra) in ga.iter_mut().zip(&rev) {
                        for (x, &rb) in row.iter_mut().zip(&rev) {
                            std::mem::swap(x, &mut buf[rb * run + ra]);
                        }
                    }
                    for (dst, src) in gb.iter_mut().zip(buf.chunks_exact(run)) {
                        dst.copy_from_slice(src);
                    }
                    scale(&mut gb, rm);
                }
                None => {
                    for (dst, src) in buf.chunks_exact_mut(run).zip(ga.iter()) {
                        dst.copy_from_slice(src);
                    }
                    for (row, &ra) in ga.iter_mut().zip(&rev) {
                        for (x, &rb) in row.iter_mut().zip(&rev) {
                            *x = buf[rb * run + ra];
                        }
                    }
                }
            }
            scale(&mut ga, m);
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn random_vec(n: usize, seed: u64) -> Vec<Scalar> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..n).map(|_| Scalar::random(&mut rng)).collect()
    }

    /// Evaluations of the polynomial with coefficients `coeffs` at `shift * w^i`.
    fn naive_dft(coeffs: &[Scalar], w: Scalar, shift: Scalar) -> Vec<Scalar> {
        let mut x = shift;
        (0..coeffs.len())
            .map(|_| {
                let y = coeffs.iter().rev().fold(Scalar::ZERO, |acc, c| acc * x + c);
                x *= w;
                y
            })
            .collect()
    }

    #[test]
    fn omega_is_bellpersons_root() {
        for log in [0u32, 1, 5, 16, 27, 32] {
            let d = EvaluationDomain::new(1 << log).unwrap();
            assert_eq!(d.log_size(), log);
            assert_eq!(d.size(), 1 << log);
            let mut w = d.omega();
            for _ in 0..log {
                assert_ne!(w, Scalar::ONE, "omega is not primitive");
                w = w.square();
            }
            assert_eq!(w, Scalar::ONE);
        }
        let d = EvaluationDomain::new(1000).unwrap();
        assert_eq!(d.size(), 1024);
        assert_eq!(
            d.omega(),
            Scalar::ROOT_OF_UNITY.pow_vartime([1u64 << (32 - 10)])
        );
        assert_eq!(EvaluationDomain::new(0).unwrap().size(), 1);
        assert_eq!(EvaluationDomain::new(1).unwrap().size(), 1);
        assert_eq!(EvaluationDomain::new(1025).unwrap().size(), 2048);
    }

    #[test]
    fn too_large_domain_is_an_error() {
        assert!(matches!(
            EvaluationDomain::new((1 << 32) + 1),
            Err(ProverError::DomainTooLarge { log_size: 33 })
        ));
        assert!(matches!(
            EvaluationDomain::new(usize::MAX),
            Err(ProverError::DomainTooLarge { .. })
        ));
    }

    #[test]
    fn fft_matches_naive_dft() {
        for log in 0..=8 {
            let n = 1usize << log;
            let d = EvaluationDomain::new(n).unwrap();
            let coeffs = random_vec(n, log as u64);
            let mut v = coeffs.clone();
            d.fft(&mut v).unwrap();
            assert_eq!(v, naive_dft(&coeffs, d.omega(), Scalar::ONE), "n = {n}");

            let mut v = coeffs.clone();
            d.coset_fft(&mut v).unwrap();
            let g = Scalar::MULTIPLICATIVE_GENERATOR;
            assert_eq!(v, naive_dft(&coeffs, d.omega(), g), "coset, n = {n}");

            // The inverse transform is the forward one with omega^-1, scaled by 1/n.
            let mut v = coeffs.clone();
            d.ifft(&mut v).unwrap();
            let n_inv = Scalar::from(n as u64).invert().unwrap();
            let expect: Vec<Scalar> = naive_dft(&coeffs, d.omega().invert().unwrap(), Scalar::ONE)
                .into_iter()
                .map(|x| x * n_inv)
                .collect();
            assert_eq!(v, expect, "ifft, n = {n}");
        }
    }

    /// Sizes that take the two-pass path and the blocked permutation, checked against
    /// the naive transform at a sample of points (the full O(n^2) product is too slow).
    #[test]
    fn large_fft_matches_naive_at_sample_points() {
        for log in [11u32, 12, 13, 14, 15, 17] {
            let n = 1usize << log;
            let d = EvaluationDomain::new(n).unwrap();
            let coeffs = random_vec(n, 100 + log as u64);
            let g = Scalar::MULTIPLICATIVE_GENERATOR;
            let mut plain = coeffs.clone();
            d.fft(&mut plain).unwrap();
            let mut coset = coeffs.clone();
            d.coset_fft(&mut coset).unwrap();
            for i in [0, 1, 2, 3, n / 2 - 1, n / 2, n / 2 + 1, n / 3, n - 2, n - 1] {
                let x = d.omega().pow_vartime([i as u64]);
                let eval = |x: Scalar| coeffs.iter().rev().fold(Scalar::ZERO, |acc, c| acc * x + c);
                assert_eq!(plain[i], eval(x), "fft, n = {n}, i = {i}");
                assert_eq!(coset[i], eval(g * x), "coset_fft, n = {n}, i = {i}");
            }
        }
    }

    #[test]
    fn round_trips() {
        for log in 0..=14 {
            let n = 1usize << log;
            let d = EvaluationDomain::new(n).unwrap();
            let x = random_vec(n, 1000 + log as u64);
            let mut v = x.clone();
            d.fft(&mut v).unwrap();
            d.ifft(&mut v).unwrap();
            assert_eq!(v, x, "ifft(fft(x)), n = {n}");
            d.ifft(&mut v).unwrap();
            d.fft(&mut v).unwrap();
            assert_eq!(v, x, "fft(ifft(x)), n = {n}");
            d.coset_fft(&mut v).unwrap();
            d.icoset_fft(&mut v).unwrap();
            assert_eq!(v, x, "icoset(coset(x)), n = {n}");
            d.icoset_fft(&mut v).unwrap();
            d.coset_fft(&mut v).unwrap();
            assert_eq!(v, x, "coset(icoset(x)), n = {n}");
        }
    }

    #[test]
    fn wrong_length_is_an_error() {
        let d = EvaluationDomain::new(16).unwrap();
        for len in [0usize, 8, 15, 17, 32] {
            let mut v = vec![Scalar::ONE; len];
            for r in [
                d.fft(&mut v),
                d.ifft(&mut v),
                d.coset_fft(&mut v),
                d.icoset_fft(&mut v),
                d.divide_by_z_on_coset(&mut v),
            ] {
                match r {
                    Err(ProverError::LengthMismatch {
                        expected, actual, ..
                    }) => assert_eq!((expected, actual), (16, len)),
                    other => panic!("expected LengthMismatch, got {other:?}"),
                }
            }
            assert!(v.iter().all(|x| *x == Scalar::ONE), "input was modified");
        }
    }

    #[test]
    fn distribute_powers_multiplies_by_powers() {
        let g = Scalar::from(7u64);
        for n in [0usize, 1, 5, CHUNK - 1, CHUNK + 3, 3 * CHUNK] {
            let mut v = random_vec(n, n as u64);
            let x = v.clone();
            distribute_powers(&mut v, g);
            let mut p = Scalar::ONE;
            for (i, (a, b)) in v.iter().zip(&x).enumerate() {
                assert_eq!(*a, *b * p, "n = {n}, i = {i}");
                p *= g;
            }
        }
    }

    fn schoolbook(a: &[Scalar], b: &[Scalar]) -> Vec<Scalar> {
        let mut out = vec![Scalar::ZERO; a.len() + b.len()];
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                out[i + j] += *x * y;
            }
        }
        out
    }

    #[test]
    fn polynomial_multiplication_via_coset_fft() {
        for (la, lb) in [(1usize, 1usize), (3, 5), (17, 40), (64, 64), (700, 1100)] {
            let a = random_vec(la, la as u64);
            let b = random_vec(lb, 7 + lb as u64);
            let d = EvaluationDomain::new(la + lb).unwrap();
            let mut ea = a.clone();
            ea.resize(d.size(), Scalar::ZERO);
            let mut eb = b.clone();
            eb.resize(d.size(), Scalar::ZERO);
            d.coset_fft(&mut ea).unwrap();
            d.coset_fft(&mut eb).unwrap();
            ea.iter_mut().zip(&eb).for_each(|(x, y)| *x *= y);
            d.icoset_fft(&mut ea).unwrap();
            let mut expect = schoolbook(&a, &b);
            expect.resize(d.size(), Scalar::ZERO);
            assert_eq!(ea, expect, "{la} x {lb}");
        }
    }

    /// The prover's use: A, B, C are evaluations on the domain of a "satisfied" system
    /// (a_i * b_i = c_i), so A*B - C vanishes on the domain and is Z times a quotient of
    /// degree at most n - 2. The coset evaluations, divided by Z, must interpolate to it.
    #[test]
    fn quotient_by_z_on_coset() {
        for log in [1u32, 2, 5, 10, 11, 13] {
            let n = 1usize << log;
            let d = EvaluationDomain::new(n).unwrap();
            let mut a = random_vec(n, log as u64);
            let mut b = random_vec(n, 50 + log as u64);
            let mut c: Vec<Scalar> = a.iter().zip(&b).map(|(x, y)| *x * y).collect();
            let (pa, pb, pc) = {
                for v in [&mut a, &mut b, &mut c] {
                    d.ifft(v).unwrap();
                }
                (a.clone(), b.clone(), c.clone())
            };
            for v in [&mut a, &mut b, &mut c] {
                d.coset_fft(v).unwrap();
            }
            let mut h: Vec<Scalar> = (0..n).map(|i| a[i] * b[i] - c[i]).collect();
            d.divide_by_z_on_coset(&mut h).unwrap();
            d.icoset_fft(&mut h).unwrap();
            assert_eq!(h[n - 1], Scalar::ZERO, "quotient degree, n = {n}");

            // Check q * Z = A*B - C at a random point.
            let x = Scalar::from(123_456_789u64);
            let eval = |p: &[Scalar]| p.iter().rev().fold(Scalar::ZERO, |acc, k| acc * x + k);
            let z = x.pow_vartime([n as u64]) - Scalar::ONE;
            assert_eq!(eval(&h) * z, eval(&pa) * eval(&pb) - eval(&pc), "n = {n}");
        }
        let d = EvaluationDomain::new(8).unwrap();
        let g = Scalar::MULTIPLICATIVE_GENERATOR;
        assert_eq!(d.z_on_coset(), g.pow_vartime([8u64]) - Scalar::ONE);
        assert_eq!(d.z(&g), d.z_on_coset());
        assert_eq!(d.z(&d.omega()), Scalar::ZERO);
    }

    #[test]
    fn twiddle_table_is_bit_reversed_powers() {
        let d = EvaluationDomain::new(1 << 12).unwrap();
        let tw = d.twiddles();
        assert_eq!(tw.len(), 1 << 11);
        for k in [0usize, 1, 2, 3, 100, 2047] {
            let e = reverse_bits(k, 11) as u64;
            assert_eq!(tw[k], d.omega().pow_vartime([e]));
            let (w, neg) = twiddle(tw, k, true);
            let w = if neg { -w } else { w };
            assert_eq!(w, d.omega().invert().unwrap().pow_vartime([e]), "k = {k}");
        }
    }

    #[test]
    fn bit_reverse_matches_naive() {
        let (c, h) = (Scalar::from(3u64), Scalar::from(5u64));
        // Below and above the blocked path's threshold, odd and even middle widths.
        for log in [0u32, 1, 2, 5, 13, 14, 15, 16, 17] {
            let n = 1usize << log;
            let x = random_vec(n, 7 + log as u64);
            let mut plain = x.clone();
            bit_reverse_scaled(&mut plain, None);
            let mut scaled = x.clone();
            bit_reverse_scaled(&mut scaled, Some((c, h)));
            let mut ones = x.clone();
            bit_reverse_scaled(&mut ones, Some((c, Scalar::ONE)));
            let mut f = c;
            for i in 0..n {
                let y = x[reverse_bits(i, log)];
                assert_eq!(plain[i], y, "n = {n}, i = {i}");
                assert_eq!(scaled[i], y * f, "scaled, n = {n}, i = {i}");
                assert_eq!(ones[i], y * c, "1/n-style, n = {n}, i = {i}");
                f *= h;
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        #[test]
        fn prop_linear_and_invertible(log in 0u32..13, seed in any::<u64>(), s in any::<u64>()) {
            let n = 1usize << log;
            let d = EvaluationDomain::new(n).unwrap();
            let x = random_vec(n, seed);
            let y = random_vec(n, seed ^ 0x5555);
            let s = Scalar::from(s);
            let mut fx = x.clone();
            d.fft(&mut fx).unwrap();
            let mut fy = y.clone();
            d.fft(&mut fy).unwrap();
            let mut fxy: Vec<Scalar> = x.iter().zip(&y).map(|(a, b)| *a * s + b).collect();
            d.fft(&mut fxy).unwrap();
            for i in 0..n {
                prop_assert_eq!(fxy[i], fx[i] * s + fy[i]);
            }
            d.ifft(&mut fx).unwrap();
            prop_assert_eq!(&fx, &x);
            let mut c = y.clone();
            d.icoset_fft(&mut c).unwrap();
            d.coset_fft(&mut c).unwrap();
            prop_assert_eq!(&c, &y);
        }
    }
}
