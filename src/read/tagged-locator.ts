/** A `Locator` for a record or event that came through a pipe: its tagged position, or its count. */
import type { Position } from "./position.js";
import type { Locator } from "./locator.js";

export class TaggedLocator implements Locator {
  byteEnd: number | undefined;

  constructor(
    private readonly position: Position | undefined,
    private readonly count: number,
    private readonly onKeep: (byteEnd: number | undefined) => void,
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
  keepEnd(): void {
    this.onKeep(this.position?.byteEnd);
  }
}
