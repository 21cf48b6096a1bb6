// The largest value recorded over a sliding window, in fixed slots: constant memory and
// constant time however many values come, and no reset on read (any number of scrapers).
import type { Clock } from "../../core/deps.js";

export class MaxWindow {
  private readonly slotMs: number;
  /** Per slot: its index (start / slotMs) and the largest value recorded in it. */
  private readonly slots: { index: number; max: number }[];

  constructor(
    private readonly clock: Clock,
    windowMs: number,
    slotCount: number,
  ) {
    this.slotMs = windowMs / slotCount;
    this.slots = Array.from({ length: slotCount }, () => ({ index: -1, max: 0 }));
  }

  record(value: number): void {
    const index = Math.floor(this.clock.now() / this.slotMs);
    const slot = this.slots[index % this.slots.length] as { index: number; max: number };
    if (slot.index !== index) {
      slot.index = index;
      slot.max = value;
    } else slot.max = Math.max(slot.max, value);
  }

  /** The largest value recorded in the last window; 0 if none. */
  max(): number {
    const oldest = Math.floor(this.clock.now() / this.slotMs) - this.slots.length + 1;
    let max = 0;
    for (const slot of this.slots) if (slot.index >= oldest) max = Math.max(max, slot.max);
    return max;
  }
}
