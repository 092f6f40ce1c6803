/**
 * A bounded ring: keeps the last `capacity` items pushed, oldest first when listed, and how many
 * were pushed in all (so a reader can say "12 of 340 shown"). Memory is fixed once full.
 */
export class Ring<T> {
  private readonly items: T[] = [];
  private next = 0;
  private pushed = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`a ring holds at least one item, not ${capacity}`);
  }

  push(item: T): void {
    if (this.items.length < this.capacity) this.items.push(item);
    else this.items[this.next] = item;
    this.next = (this.next + 1) % this.capacity;
    this.pushed++;
  }

  /** Every item pushed since the start, including those overwritten. */
  get total(): number {
    return this.pushed;
  }

  /** The items held, oldest first. */
  list(): T[] {
    if (this.items.length < this.capacity) return [...this.items];
    return [...this.items.slice(this.next), ...this.items.slice(0, this.next)];
  }
}
