/// xoshiro256** (Blackman and Vigna, https://prng.di.unimi.it/xoshiro256starstar.c):
/// a fast generator of 64-bit numbers, seeded from the system's random
/// source. For ids that must be unique, never for secrets.
struct Xoshiro256: RandomNumberGenerator {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    init() {
        var system = SystemRandomNumberGenerator()
        state = (system.next(), system.next(), system.next(), system.next())
        // An all-zero state would stay zero; the system will not give one, but be sure.
        if state == (0, 0, 0, 0) { state.0 = 0x9E37_79B9_7F4A_7C15 }
    }

    mutating func next() -> UInt64 {
        let result = ((state.1 &* 5) << 7 | (state.1 &* 5) >> 57) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = state.3 << 45 | state.3 >> 19
        return result
    }
}
