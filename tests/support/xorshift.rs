//! A fixed-seed xorshift for the mutation tests, so that a failure reproduces exactly.

pub struct XorShift(pub u64);

impl XorShift {
    /// A number below `n` (0 for `n` = 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}
