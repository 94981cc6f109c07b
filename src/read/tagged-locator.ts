/** A `Locator` for a record or event that came through a pipe: its tagged position, or its count. */
import type { LastEvent } from "./located.js";
import type { Position } from "./position.js";
import type { Locator } from "./locator.js";

export class TaggedLocator implements Locator {
  constructor(
    private readonly position: Position | undefined,
    private readonly count: number,
    /** The preview when no stage before said what arrived (a value from your own source). */
    private readonly fallbackPreview: () => string,
    private readonly onKeep: (last: LastEvent) => void = () => {},
  ) {}

  get index(): number {
    return this.position?.eventIndex ?? this.count;
  }
  get line(): number | undefined {
    return this.position?.line;
  }
  get unterminated(): boolean {
    return this.position?.unterminated ?? false;
  }
  recordStart(): number | undefined {
    return this.position?.byteOffset;
  }
  preview(): string {
    return this.position?.preview ?? this.fallbackPreview();
  }
  keepEnd(): void {
    this.onKeep({ index: this.index, byteEnd: this.position?.byteEnd, preview: this.preview() });
  }
}
