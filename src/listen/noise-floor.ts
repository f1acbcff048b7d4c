/**
 * The level of the room when nobody speaks, followed as it changes: it drops at once to a quieter
 * frame and rises slowly, so speech (loud, brief) barely moves it while a fan switched on does.
 */
export class NoiseFloor {
  private floorDb: number;

  constructor(
    private readonly initialDb = -70,
    /** How fast the floor may rise, per frame. */
    private readonly riseDbPerFrame = 0.05,
  ) {
    this.floorDb = initialDb;
  }

  /** Takes a frame's level (dBFS) and returns the floor after it. */
  update(levelDb: number): number {
    this.floorDb = levelDb < this.floorDb ? levelDb : Math.min(levelDb, this.floorDb + this.riseDbPerFrame);
    return this.floorDb;
  }

  get db(): number {
    return this.floorDb;
  }

  reset(): void {
    this.floorDb = this.initialDb;
  }
}
