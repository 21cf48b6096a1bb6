// Go's hash/fnv New128a (FNV-1a, 128 bits), which newer kubelets hash static pods with: for each
// byte, the state's low byte is XORed with it, then the state is multiplied by the FNV prime
// 2^88 + 0x13b modulo 2^128. The state is four 32-bit limbs, least significant first, so that
// every product stays exact in a double.

const prime = 0x13b;
const twoTo24 = 0x1000000;
const twoTo32 = 0x100000000;

/** New128a().Write(data).Sum(nil) as hex (big-endian, as Go's Sum appends it). */
export function fnv128aHex(data: Uint8Array): string {
  // offset128Higher 0x6c62272e07bb0142, offset128Lower 0x62b821756295c58d
  let a0 = 0x6295c58d;
  let a1 = 0x62b82175;
  let a2 = 0x07bb0142;
  let a3 = 0x6c62272e;
  for (const byte of data) {
    a0 = (a0 ^ byte) >>> 0;
    // state * 0x13b, plus (state mod 2^40) << 88.
    let c0 = a0 * prime;
    let c1 = a1 * prime;
    let c2 = a2 * prime + (a0 & 0xff) * twoTo24;
    let c3 = a3 * prime + (a0 >>> 8) + (a1 & 0xff) * twoTo24;
    let carry = Math.floor(c0 / twoTo32);
    c0 -= carry * twoTo32;
    c1 += carry;
    carry = Math.floor(c1 / twoTo32);
    c1 -= carry * twoTo32;
    c2 += carry;
    carry = Math.floor(c2 / twoTo32);
    c2 -= carry * twoTo32;
    c3 += carry;
    c3 %= twoTo32;
    a0 = c0;
    a1 = c1;
    a2 = c2;
    a3 = c3;
  }
  return [a3, a2, a1, a0].map((limb) => limb.toString(16).padStart(8, "0")).join("");
}
